import '@xyflow/react/dist/style.css';
import { Background, Controls, ReactFlow, type Edge, type Node } from '@xyflow/react';
import { useTranslation } from 'react-i18next';
import type { StepNodeData } from './graph';

/** The flow drawn as a graph; a click on a step's node selects that step. */
export function FlowGraph({
  graph,
  onSelectStep,
}: {
  graph: { nodes: Node<StepNodeData>[]; edges: Edge[] };
  onSelectStep: (stepId: string | null) => void;
}) {
  const { t } = useTranslation();
  return (
    <ReactFlow
      nodes={graph.nodes}
      edges={graph.edges}
      fitView
      nodesDraggable={false}
      onNodeClick={(_, node) => onSelectStep(node.data.stepId ?? null)}
      proOptions={{ hideAttribution: true }}
      ariaLabelConfig={{
        'controls.ariaLabel': t('flow.a11y.controls'),
        'controls.zoomIn.ariaLabel': t('flow.a11y.zoomIn'),
        'controls.zoomOut.ariaLabel': t('flow.a11y.zoomOut'),
        'controls.fitView.ariaLabel': t('flow.a11y.fitView'),
        'controls.interactive.ariaLabel': t('flow.a11y.interactive'),
        'minimap.ariaLabel': t('flow.a11y.miniMap'),
        'handle.ariaLabel': t('flow.a11y.handle'),
        'node.a11yDescription.default': t('flow.a11y.node'),
        'node.a11yDescription.keyboardDisabled': t('flow.a11y.node'),
        'edge.a11yDescription.default': t('flow.a11y.edge'),
      }}
    >
      <Background />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}
