/**
 * Tenant secrets bound to where they are stored. Every sealed value (mailbox passwords, channel
 * connection tokens, webhook signing secrets) is encrypted by `secrets.ts` (AES-256-GCM under
 * PARLEY_SECRET_KEY, key ids for rotation) with its table, row id and field as associated data
 * (`<table>:<row id>:<field>`): a value copied into another row, or into another field of the
 * same row, does not open.
 *
 * Rows sealed in an older form (purpose only, or another key) carry a `secrets_version` below
 * BOUND_SECRETS_VERSION or a key id other than the current one; `resealRows` re-seals them once
 * at start-up (a SQL migration cannot decrypt). Each table says how to find such rows, how to
 * open a value in the row's old form, and how to store the new values only while the row is
 * still as it was read (instances starting together do not trip over each other).
 */
import type { Queryable } from '../db/database.js';
import { SecretDecryptError, decryptSecret, encryptSecret, secretKeyring } from './secrets.js';

export interface SealBinding {
  table: string;
  rowId: string;
  field: string;
}

/** The `secrets_version` of rows whose values are bound to table, row and field. */
export const BOUND_SECRETS_VERSION = 2;

export const bindingContext = (binding: SealBinding) => `${binding.table}:${binding.rowId}:${binding.field}`;

export interface KeyConfig {
  secretKey: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
}

export interface RowSecrets {
  seal(plain: string, binding: SealBinding): string;
  open(stored: string, binding: SealBinding): string;
  /** Opens a value under an older associated data (only the start-up re-seal uses it). */
  openWithContext(stored: string, context: string): string;
  /** The id of the key that encrypts now. */
  currentKeyId(): string;
}

/** The bound secrets of a configuration (the keyring is loaded once per configuration). */
export function rowSecretsFor(config: KeyConfig): RowSecrets {
  const keyring = () => secretKeyring(config);
  return {
    seal: (plain, binding) => encryptSecret(keyring(), plain, bindingContext(binding)),
    open: (stored, binding) => decryptSecret(keyring(), stored, bindingContext(binding)),
    openWithContext: (stored, context) => decryptSecret(keyring(), stored, context),
    currentKeyId: () => keyring().currentId,
  };
}

/** The key id a stored value names (`s1:<key id>:…`), or undefined for another form. */
export const keyIdOf = (stored: string): string | undefined =>
  stored.startsWith('s1:') ? stored.split(':')[1] : undefined;

/** One table's part in the start-up re-seal. */
export interface ResealTable<R extends { id: string }> {
  table: string;
  /** Rows below `version`, or with a value under a key other than `currentKeyId`. */
  candidates(db: Queryable, version: number, currentKeyId: string): Promise<R[]>;
  /** The row's sealed values by field (absent ones left out). */
  values(row: R): Record<string, string>;
  /** Opens a value as the row holds it (its version's form). */
  openStored(row: R, field: string, stored: string, secrets: RowSecrets): string;
  /** Writes the new values and the version, only while the row is still as read; true if written. */
  store(db: Queryable, row: R, sealed: Record<string, string>, version: number): Promise<boolean>;
}

/** A row whose sealed values sit in one JSON object column `secrets`, by field. */
export interface JsonSecretsRow {
  id: string;
  secrets: Record<string, string>;
  secrets_version: number;
}

/**
 * The re-seal part of a table that keeps its sealed values in a JSON `secrets` column (mailboxes,
 * channel connections): values by field, rows of the unbound form opened with the purpose they
 * were sealed with, bound ones with their row and field.
 */
export function jsonSecretsReseal<R extends JsonSecretsRow>(
  table: string,
  unboundContext: string,
  rows: Pick<ResealTable<R>, 'candidates' | 'store'>,
): ResealTable<R> {
  return {
    table,
    ...rows,
    values: (row) => row.secrets,
    openStored: (row, field, stored, secrets) =>
      row.secrets_version < BOUND_SECRETS_VERSION
        ? secrets.openWithContext(stored, unboundContext)
        : secrets.open(stored, { table, rowId: row.id, field }),
  };
}

/**
 * Re-seals the rows of one table bound to their row and field under the current key. A value
 * that does not open (a key no longer listed) is left as it is and its row reported; it could
 * not be used anyway.
 */
export async function resealRows<R extends { id: string }>(
  db: Queryable,
  secrets: RowSecrets,
  target: ResealTable<R>,
): Promise<{ resealed: number; failed: string[] }> {
  let resealed = 0;
  const failed: string[] = [];
  for (const row of await target.candidates(db, BOUND_SECRETS_VERSION, secrets.currentKeyId())) {
    try {
      const sealed: Record<string, string> = {};
      for (const [field, stored] of Object.entries(target.values(row))) {
        const plain = target.openStored(row, field, stored, secrets);
        sealed[field] = secrets.seal(plain, { table: target.table, rowId: row.id, field });
      }
      if (await target.store(db, row, sealed, BOUND_SECRETS_VERSION)) resealed += 1;
    } catch (error) {
      if (!(error instanceof SecretDecryptError)) throw error;
      failed.push(row.id);
    }
  }
  return { resealed, failed };
}
