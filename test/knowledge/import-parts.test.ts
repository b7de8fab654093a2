import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { splitStatements } from '../../src/db/migrate.js';
import * as imports from '../../src/modules/knowledge/imports/repository.js';
import { createTenant } from '../../src/modules/tenants/service.js';
import { describeEachBackend } from '../helpers/db.js';

const MB = 1024 * 1024;

async function* chunksOf(bytes: Buffer, sizes: number[]): AsyncGenerator<Buffer> {
  let at = 0;
  for (const size of sizes) {
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

async function collect(parts: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const all: Buffer[] = [];
  for await (const part of parts) all.push(part);
  return all;
}

describeEachBackend('import document parts', (get) => {
  const newDocument = async () => {
    const { tenant } = await get().db.transaction((tx) =>
      createTenant(tx, { name: 'Teile', plan: 'business' }),
    );
    const job = await imports.insertImport(
      get().db,
      tenant.id,
      { botId: null },
      {
        sitemapUrl: null,
        createdBy: null,
      },
    );
    const [documentId] = await imports.insertDocuments(get().db, tenant.id, job.id, [
      { kind: 'file', name: 'gross.pdf', mediaType: 'application/pdf', sha256: 'a'.repeat(64) },
    ]);
    return { tenantId: tenant.id, documentId: documentId! };
  };

  it('stores a file as parts of at most 1 MB and reads the same bytes back; processed, they are gone', async () => {
    const { tenantId, documentId } = await newDocument();
    const bytes = randomBytes(Math.round(2.5 * MB));
    // Chunks of any size: a chunk over 1 MB becomes several parts.
    const stored = await get().db.transaction((tx) =>
      imports.writeDocumentParts(
        tx,
        tenantId,
        documentId,
        chunksOf(bytes, [300 * 1024, 1.5 * MB, bytes.length]),
      ),
    );
    expect(stored).toBe(bytes.length);
    const parts = await collect(imports.readDocumentParts(get().db, documentId));
    expect(parts.every((part) => Buffer.isBuffer(part) && part.length <= MB)).toBe(true);
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    await imports.finishDocument(get().db, documentId, {
      status: 'failed',
      entriesCreated: 0,
      pages: null,
      errorCode: 'damaged',
      error: 'x',
    });
    expect(await collect(imports.readDocumentParts(get().db, documentId))).toEqual([]);
  });

  it('migration 0022 turns the base64 content of waiting files into parts', async () => {
    const sql = readFileSync(
      new URL('../../src/db/migrations/0022_import_document_parts.sql', import.meta.url),
      'utf8',
    );
    const bytes = randomBytes(Math.round(2.2 * MB));
    const rolledBack = new Error('rolled back');
    const outcome = await get()
      .db.transaction(async (tx) => {
        // Tables of the same names before the migration, in pg_temp (searched first).
        await tx.query(
          'CREATE TEMP TABLE knowledge_import_documents (id uuid PRIMARY KEY, tenant_id uuid, content text)',
        );
        await tx.query(
          `INSERT INTO knowledge_import_documents VALUES
             ('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-0000000000aa', $1),
             ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-0000000000aa', NULL)`,
          [bytes.toString('base64')],
        );
        const statements = splitStatements(sql).map((statement) =>
          statement
            .replace(/REFERENCES \w+\(id\) ON DELETE CASCADE/g, '')
            .replace(
              'CREATE TABLE knowledge_import_document_parts',
              'CREATE TEMP TABLE knowledge_import_document_parts',
            ),
        );
        for (const statement of statements) await tx.query(statement);
        const parts = await tx.query<{
          document_id: string;
          tenant_id: string;
          part: number;
          bytes: Uint8Array;
        }>('SELECT document_id, tenant_id, part, bytes FROM knowledge_import_document_parts ORDER BY part');
        const columns = await tx.query<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns
           WHERE table_name = 'knowledge_import_documents' AND table_schema LIKE 'pg_temp%'`,
        );
        throw Object.assign(rolledBack, { parts, columns: columns.map((c) => c.column_name) });
      })
      .catch(
        (error: unknown) =>
          error as typeof rolledBack & {
            parts: { document_id: string; tenant_id: string; part: number; bytes: Uint8Array }[];
            columns: string[];
          },
      );
    expect(outcome).toBe(rolledBack);
    expect(
      outcome.parts.map((p) => [p.document_id.endsWith('1'), p.tenant_id.endsWith('aa'), p.part]),
    ).toEqual([
      [true, true, 0],
      [true, true, 1],
      [true, true, 2],
    ]);
    expect(Buffer.concat(outcome.parts.map((p) => Buffer.from(p.bytes))).equals(bytes)).toBe(true);
    expect(outcome.columns.sort()).toEqual(['id', 'tenant_id']);
  });
});
