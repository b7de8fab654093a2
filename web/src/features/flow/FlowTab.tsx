import { Alert, Badge, Button, Card, Group, List, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Suspense, lazy, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/session';
import { EmptyState, ErrorAlert, Loading } from '../../components/states';
import { useBotId } from '../bots/BotPage';
import { BlockEditor } from './BlockEditor';
import { useBlocks, useFlowSteps, useInjectPrompt, usePreflight } from './queries';
import { flowGraph } from './graph';
import { BlockReasons } from './BlockReasons';
import { MessagingWarnings } from './MessagingWarnings';
import { StepEditor } from './StepEditor';
import { StepList } from './StepList';
import { notify } from '../../components/notify';
import { DataTable } from '../../components/DataTable';
import { BlockForm } from './BlockForm';
import { BlockRow } from './BlockRow';
import { Section } from '../../components/Section';
import { StepForm } from './StepForm';

// The graph library is the page's largest part: it loads after the pre-flight and the lists.
const FlowGraph = lazy(() => import('./FlowGraph').then((m) => ({ default: m.FlowGraph })));

export function FlowTab() {
  const { t } = useTranslation();
  const botId = useBotId();
  const canEdit = useCan('bot:edit');
  const preflight = usePreflight(botId);
  const [editing, setEditing] = useState<string | null>(null);
  // The graph and the step list are one view: a step selected in either is edited below them.
  const [selectedStep, setSelectedStep] = useState<string | null>(null);
  const steps = useFlowSteps(botId);
  const blocks = useBlocks(botId);
  const inject = useInjectPrompt(botId);
  const graph = useMemo(
    () =>
      preflight.data ? flowGraph(preflight.data.flowAnalysis, preflight.data.blocks, selectedStep) : null,
    [preflight.data, selectedStep],
  );
  if (preflight.isPending || blocks.isPending) return <Loading />;
  if (preflight.error || blocks.error) return <ErrorAlert error={preflight.error ?? blocks.error} />;
  const result = preflight.data;
  const statusOf = new Map(result.blocks.map((b) => [b.blockId, b.status]));

  return (
    <Stack>
      <Card withBorder data-testid="preflight">
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h4">
            {t('flow.preflight')}
          </Title>
          <Group gap={6}>
            <Badge color="green">{t('flow.count.green', { count: result.summary.green })}</Badge>
            <Badge color="orange">{t('flow.count.orange', { count: result.summary.orange })}</Badge>
            <Badge color="red">{t('flow.count.red', { count: result.summary.red })}</Badge>
          </Group>
        </Group>
        <Alert color={result.canActivate ? 'green' : 'red'} role="status" mb="sm">
          {result.canActivate ? t('flow.canActivate') : t('flow.cannotActivate')}
        </Alert>
        {result.blocks.some((b) => b.status !== 'green') && (
          <List size="sm" spacing={4}>
            {result.blocks
              .filter((b) => b.status !== 'green')
              .map((b) => (
                <List.Item key={b.blockId}>
                  <Text span fw={600}>
                    {b.blockName}
                  </Text>
                  : <BlockReasons check={b} />
                </List.Item>
              ))}
          </List>
        )}
        <MessagingWarnings warnings={result.messagingWarnings} />
        {canEdit && result.promptInjection.blockCount > 0 && (
          <Group mt="sm">
            <Button
              variant="light"
              // The label is long: at phone width it wraps instead of being cut off.
              styles={{
                root: { height: 'auto', minHeight: 36 },
                label: { whiteSpace: 'normal', padding: '6px 0' },
              }}
              loading={inject.isPending}
              onClick={() =>
                inject.mutate(result.promptInjection.combinedPrompt, {
                  onSuccess: () => notify(t('flow.injected')),
                })
              }
            >
              {t('flow.inject')}
            </Button>
            {inject.error && <ErrorAlert error={inject.error} />}
          </Group>
        )}
      </Card>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Section title={t('flow.blocks')}>
          {blocks.data.blocks.length === 0 ? (
            <EmptyState title={t('flow.noBlocksTitle')} text={t('flow.noBlocksText')} />
          ) : (
            <DataTable
              columns={[t('flow.blockName'), t('flow.check'), t('flow.trigger'), t('common.actions')]}
              minWidth={420}
            >
              {blocks.data.blocks.map((block) => (
                <BlockRow
                  key={block.id}
                  block={block}
                  botId={botId}
                  status={statusOf.get(block.id)}
                  canEdit={canEdit}
                  onEdit={() => setEditing(block.id)}
                />
              ))}
            </DataTable>
          )}
          {canEdit && (
            <Card withBorder mt="md">
              <BlockForm botId={botId} />
            </Card>
          )}
        </Section>
        <Section title={t('flow.graph')}>
          {result.flowAnalysis.steps.length === 0 ? (
            <EmptyState title={t('flow.noStepsTitle')} text={t('flow.noStepsText')} />
          ) : (
            <>
              <div style={{ height: 360 }} data-testid="flow-graph">
                {graph && (
                  <Suspense fallback={<Loading />}>
                    <FlowGraph graph={graph} onSelectStep={setSelectedStep} />
                  </Suspense>
                )}
              </div>
              {(result.flowAnalysis.unreachableSteps.length > 0 ||
                result.flowAnalysis.deadEnds.length > 0) && (
                <Text size="sm" c="red.9" mt="xs">
                  {t('flow.problems', {
                    unreachable: result.flowAnalysis.unreachableSteps.join(', ') || '—',
                    deadEnds: result.flowAnalysis.deadEnds.join(', ') || '—',
                  })}
                </Text>
              )}
            </>
          )}
          <StepList
            botId={botId}
            blocks={blocks.data.blocks}
            canEdit={canEdit}
            selected={selectedStep}
            onSelect={setSelectedStep}
          />
          {(() => {
            const step = steps.data?.steps.find((s) => s.id === selectedStep);
            if (!step)
              return result.flowAnalysis.steps.length > 0 ? (
                <Text size="sm" c="dimmed" mt="xs">
                  {t('flow.stepEditor.hint')}
                </Text>
              ) : null;
            return (
              <StepEditor
                key={`${step.id}:${step.updated_at}`}
                botId={botId}
                step={step}
                blocks={blocks.data.blocks}
                canEdit={canEdit}
              />
            );
          })()}
          {canEdit && (
            <Card withBorder mt="md">
              <StepForm botId={botId} blocks={blocks.data.blocks} />
            </Card>
          )}
        </Section>
      </SimpleGrid>
      {(() => {
        const block = blocks.data.blocks.find((b) => b.id === editing);
        return block ? <BlockEditor botId={botId} block={block} onClose={() => setEditing(null)} /> : null;
      })()}
    </Stack>
  );
}
