import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../shared/context.js';
import { currentUser, requireUser } from '../auth/index.js';
import { IdParams, SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import {
  BlockParams,
  BlockSchema,
  CreateBlockBody,
  CreateStepBody,
  DanglingReference,
  ReorderStepsBody,
  StepParams,
  StepSchema,
  UpdateBlockBody,
  UpdateStepBody,
  serializeBlock,
  serializeStep,
} from './schema.js';
import {
  changeBlock,
  changeStep,
  createBlock,
  createStep,
  getBlock,
  getStep,
  listBotBlocks,
  listBotSteps,
  removeBlock,
  removeStep,
  reorderSteps,
} from './service.js';

const BlockResponse = Type.Object({ success: Type.Literal(true), block: BlockSchema });
const StepResponse = Type.Object({ success: Type.Literal(true), step: StepSchema });
const StepsResponse = Type.Object({ success: Type.Literal(true), steps: Type.Array(StepSchema) });

/** Dashboard: a bot's interactive blocks and the flow steps that show them. */
export const flowRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const security = SESSION_SECURITY;
  const blockTags = ['flow: blocks'];
  const stepTags = ['flow: steps'];
  const view = requireUser(ctx, 'bot:view');
  const edit = requireUser(ctx, 'bot:edit');

  app.get(
    '/api/bots/:id/blocks',
    {
      onRequest: view,
      schema: {
        operationId: 'listBlocks',
        tags: blockTags,
        summary: "List a bot's interactive blocks",
        security,
        params: IdParams,
        response: {
          200: Type.Object({ success: Type.Literal(true), blocks: Type.Array(BlockSchema) }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      return { success: true as const, blocks: (await listBotBlocks(ctx.db, ref)).map(serializeBlock) };
    },
  );

  app.get(
    '/api/bots/:id/blocks/:blockId',
    {
      onRequest: view,
      schema: {
        operationId: 'getBlock',
        tags: blockTags,
        summary: 'One interactive block',
        security,
        params: BlockParams,
        response: { 200: BlockResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      return {
        success: true as const,
        block: serializeBlock(await getBlock(ctx.db, ref, request.params.blockId)),
      };
    },
  );

  app.post(
    '/api/bots/:id/blocks',
    {
      onRequest: edit,
      schema: {
        operationId: 'createBlock',
        tags: blockTags,
        summary: 'Create an interactive block; every step it jumps to must be a step of this bot',
        security,
        params: IdParams,
        body: CreateBlockBody,
        response: { 201: BlockResponse, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const ref = { tenantId: user.tenantId, botId: request.params.id };
      const block = await createBlock(ctx.db, ref, request.body, user.id);
      return reply.status(201).send({ success: true as const, block: serializeBlock(block) });
    },
  );

  app.patch(
    '/api/bots/:id/blocks/:blockId',
    {
      onRequest: edit,
      schema: {
        operationId: 'updateBlock',
        tags: blockTags,
        summary: 'Change fields of an interactive block; the result is validated as a whole',
        security,
        params: BlockParams,
        body: UpdateBlockBody,
        response: { 200: BlockResponse, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      const block = await changeBlock(ctx.db, ref, request.params.blockId, request.body);
      return { success: true as const, block: serializeBlock(block) };
    },
  );

  app.delete(
    '/api/bots/:id/blocks/:blockId',
    {
      onRequest: edit,
      schema: {
        operationId: 'deleteBlock',
        tags: blockTags,
        summary: 'Delete an interactive block; steps that showed it remain without a block',
        security,
        params: BlockParams,
        response: {
          200: Type.Object({ success: Type.Literal(true), deleted_id: Type.String({ format: 'uuid' }) }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      await removeBlock(ctx.db, ref, request.params.blockId);
      return { success: true as const, deleted_id: request.params.blockId };
    },
  );

  app.get(
    '/api/bots/:id/flow-steps',
    {
      onRequest: view,
      schema: {
        operationId: 'listFlowSteps',
        tags: stepTags,
        summary: "List a bot's flow steps in order",
        security,
        params: IdParams,
        response: { 200: StepsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      return { success: true as const, steps: (await listBotSteps(ctx.db, ref)).map(serializeStep) };
    },
  );

  app.get(
    '/api/bots/:id/flow-steps/:stepId',
    {
      onRequest: view,
      schema: {
        operationId: 'getFlowStep',
        tags: stepTags,
        summary: 'One flow step',
        security,
        params: StepParams,
        response: { 200: StepResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      return {
        success: true as const,
        step: serializeStep(await getStep(ctx.db, ref, request.params.stepId)),
      };
    },
  );

  app.post(
    '/api/bots/:id/flow-steps',
    {
      onRequest: edit,
      schema: {
        operationId: 'createFlowStep',
        tags: stepTags,
        summary: 'Add a flow step at a position (later steps move down) or at the end',
        security,
        params: IdParams,
        body: CreateStepBody,
        response: { 201: StepResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      const step = await createStep(ctx.db, ref, request.body);
      return reply.status(201).send({ success: true as const, step: serializeStep(step) });
    },
  );

  app.put(
    '/api/bots/:id/flow-steps/order',
    {
      onRequest: edit,
      schema: {
        operationId: 'reorderFlowSteps',
        tags: stepTags,
        summary: 'Put all flow steps into a new order (numbered 1…n)',
        security,
        params: IdParams,
        body: ReorderStepsBody,
        response: { 200: StepsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      const steps = await reorderSteps(ctx.db, ref, request.body.step_ids);
      return { success: true as const, steps: steps.map(serializeStep) };
    },
  );

  app.patch(
    '/api/bots/:id/flow-steps/:stepId',
    {
      onRequest: edit,
      schema: {
        operationId: 'updateFlowStep',
        tags: stepTags,
        summary: 'Change a flow step; a new step_order moves it and renumbers the others',
        security,
        params: StepParams,
        body: UpdateStepBody,
        response: { 200: StepResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      const step = await changeStep(ctx.db, ref, request.params.stepId, request.body);
      return { success: true as const, step: serializeStep(step) };
    },
  );

  app.delete(
    '/api/bots/:id/flow-steps/:stepId',
    {
      onRequest: edit,
      schema: {
        operationId: 'deleteFlowStep',
        tags: stepTags,
        summary: 'Delete a flow step; lists blocks that still jump to it',
        security,
        params: StepParams,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            deleted_id: Type.String({ format: 'uuid' }),
            dangling_references: Type.Array(DanglingReference, {
              description: 'Exits and goto_step actions that named the deleted step; pre-flight flags them',
            }),
          }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const ref = { tenantId: currentUser(request).tenantId, botId: request.params.id };
      const dangling = await removeStep(ctx.db, ref, request.params.stepId);
      return { success: true as const, deleted_id: request.params.stepId, dangling_references: dangling };
    },
  );
};
