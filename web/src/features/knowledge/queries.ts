import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { useRefreshingMutation } from '../../api/mutations';
import { isActive, type KnowledgeImportSummary } from './import-progress';

export type EntryScope = 'bot' | 'tenant';
export interface EntryRef {
  id: string;
  scope: EntryScope;
  title: string;
}

export const knowledgeKeys = {
  entries: (botId: string) => ['knowledge', botId] as const,
  entry: (entryId: string) => ['knowledge-entry', entryId] as const,
  imports: (botId: string) => ['knowledge-imports', botId] as const,
  importJob: (botId: string, importId: string) => ['knowledge-import', botId, importId] as const,
  unanswered: (botId: string) => ['unanswered', botId] as const,
};

const IMPORT_POLL_MS = 1000;

/** The hit test: which entries a question finds, with their scores. */
export function useKnowledgeSearch(botId: string) {
  return useMutation({
    mutationFn: (q: string) =>
      call(api.GET('/api/bots/{id}/knowledge/search', { params: { path: { id: botId }, query: { q } } })),
  });
}

/** The bot answers from its own entries and from the tenant-wide ones: the list holds both. */
export function useKnowledgeEntries(botId: string) {
  return useQuery({
    queryKey: knowledgeKeys.entries(botId),
    queryFn: async () => {
      const [own, shared] = await Promise.all([
        call(api.GET('/api/bots/{id}/knowledge', { params: { path: { id: botId }, query: { limit: 100 } } })),
        call(api.GET('/api/knowledge', { params: { query: { limit: 100 } } })),
      ]);
      return { data: [...own.data, ...shared.data] };
    },
  });
}

/** Reads the entry list anew (after an import or an edit). */
export function useRefreshEntries(botId: string) {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: knowledgeKeys.entries(botId) });
}

/** Tenant-wide entries are shared by every bot of the tenant; bot entries belong to this bot. */
export function useCreateEntry(botId: string, onSuccess: () => void) {
  const refresh = useRefreshEntries(botId);
  return useMutation({
    mutationFn: ({ scope, ...body }: { title: string; content: string; scope: EntryScope }) =>
      scope === 'tenant'
        ? call(api.POST('/api/knowledge', { body }))
        : call(api.POST('/api/bots/{id}/knowledge', { params: { path: { id: botId } }, body })),
    onSuccess: () => {
      refresh();
      onSuccess();
    },
  });
}

export function useDeleteEntry(botId: string) {
  const refresh = useRefreshEntries(botId);
  return useMutation({
    mutationFn: (entry: EntryRef) =>
      entry.scope === 'tenant'
        ? call(api.DELETE('/api/knowledge/{entryId}', { params: { path: { entryId: entry.id } } }))
        : call(
            api.DELETE('/api/bots/{id}/knowledge/{entryId}', {
              params: { path: { id: botId, entryId: entry.id } },
            }),
          ),
    onSuccess: refresh,
  });
}

/** Reads one entry from the path of its scope: the bot's list, or the tenant-wide one. */
export function useEntry(botId: string, entry: EntryRef) {
  return useQuery({
    queryKey: knowledgeKeys.entry(entry.id),
    queryFn: () =>
      entry.scope === 'bot'
        ? call(
            api.GET('/api/bots/{id}/knowledge/{entryId}', {
              params: { path: { id: botId, entryId: entry.id } },
            }),
          )
        : call(api.GET('/api/knowledge/{entryId}', { params: { path: { entryId: entry.id } } })),
  });
}

export interface EntryBody {
  title: string;
  content: string;
  source_url: string | null;
  tags: string[];
}

/** Writes an entry back to the path of its scope. */
export function useSaveEntry(
  botId: string,
  entry: EntryRef,
  handlers: { onSuccess: () => void; onError: (error: Error) => void },
) {
  return useMutation({
    mutationFn: (body: EntryBody) =>
      entry.scope === 'bot'
        ? call(
            api.PUT('/api/bots/{id}/knowledge/{entryId}', {
              params: { path: { id: botId, entryId: entry.id } },
              body,
            }),
          )
        : call(api.PUT('/api/knowledge/{entryId}', { params: { path: { entryId: entry.id } }, body })),
    ...handlers,
  });
}

/** Questions the bot could not answer, grouped. */
export function useUnanswered(botId: string) {
  return useQuery({
    queryKey: knowledgeKeys.unanswered(botId),
    queryFn: () => call(api.GET('/api/bots/{id}/unanswered', { params: { path: { id: botId } } })),
  });
}

export function useResolveUnanswered(botId: string) {
  return useRefreshingMutation(
    (groupKey: string) =>
      call(
        api.POST('/api/bots/{id}/unanswered/resolve', {
          params: { path: { id: botId } },
          body: { key: groupKey },
        }),
      ),
    knowledgeKeys.unanswered(botId),
  );
}

/** The latest imports of the bot. */
export function useImportJobs(botId: string) {
  return useQuery({
    queryKey: knowledgeKeys.imports(botId),
    queryFn: () =>
      call(
        api.GET('/api/bots/{id}/knowledge/imports', { params: { path: { id: botId }, query: { limit: 5 } } }),
      ),
  });
}

/** One import's progress, polled while it runs. */
export function useImportJob(botId: string, job: KnowledgeImportSummary) {
  return useQuery({
    queryKey: knowledgeKeys.importJob(botId, job.id),
    queryFn: () =>
      call(
        api.GET('/api/bots/{id}/knowledge/imports/{importId}', {
          params: { path: { id: botId, importId: job.id } },
        }),
      ),
    enabled: isActive(job),
    refetchInterval: (query) => (query.state.data && !isActive(query.state.data) ? false : IMPORT_POLL_MS),
  });
}

/** Starts an import (files, or a page or sitemap address); the job list is read anew. */
export function useStartImport(botId: string, onSuccess: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (source: File[] | { url: string } | { sitemap_url: string }) => {
      if (!Array.isArray(source)) {
        return call(
          api.POST('/api/bots/{id}/knowledge/imports', { params: { path: { id: botId } }, body: source }),
        );
      }
      const form = new FormData();
      for (const file of source) form.append('files', file, file.name);
      return call(
        api.POST('/api/bots/{id}/knowledge/imports', {
          params: { path: { id: botId } },
          body: form as never,
          bodySerializer: (body: unknown) => body as FormData,
        }),
      );
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: knowledgeKeys.imports(botId) });
      onSuccess();
    },
  });
}

/** Imports one text file into the bot's knowledge (one request per file: progress is real). */
export function importTextFile(botId: string, filename: string, content: string) {
  return call(
    api.POST('/api/bots/{id}/knowledge/import', {
      params: { path: { id: botId } },
      body: { files: [{ filename, content }] },
    }),
  );
}
