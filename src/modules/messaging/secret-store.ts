import type { Queryable } from '../../db/database.js';
import { SecretDecryptError } from '../../shared/secrets.js';
import {
  jsonSecretsReseal,
  resealRows,
  rowSecretsFor,
  type KeyConfig,
  type RowSecrets,
} from '../../shared/sealed.js';
import { connectionsToReseal, storeResealedConnection, type SealedConnectionRow } from './repository.js';

/**
 * Secrets of channel connections at rest (access tokens, app secrets, verify tokens, auth
 * tokens): sealed by the shared tenant-secret encryption (AES-256-GCM, key ids for rotation,
 * PARLEY_SECRET_KEY or the data directory's key file) with table, row and field bound in
 * (`channel_connections:<id>:<field>`, shared/sealed.ts): a value copied into another
 * connection, or into another field, does not open.
 */
export interface ChannelSecrets {
  seal(plain: string, connectionId: string, field: string): string;
  /** The stored secret `field` of a connection, opened (an absent one is the empty string). */
  open(connection: { id: string; secrets: Record<string, string | undefined> }, field: string): string;
}

export const CONNECTION_TABLE = 'channel_connections';
/** The associated data of version 1 (purpose only). */
const UNBOUND_CONTEXT = 'channel-connection';

export function channelSecretsFor(config: KeyConfig): ChannelSecrets {
  const secrets = rowSecretsFor(config);
  return {
    seal: (plain, rowId, field) => secrets.seal(plain, { table: CONNECTION_TABLE, rowId, field }),
    open(connection, field) {
      const stored = connection.secrets[field];
      return stored ? secrets.open(stored, { table: CONNECTION_TABLE, rowId: connection.id, field }) : '';
    },
  };
}

/**
 * For the public webhooks: a secret that does not open for this row (copied from elsewhere,
 * or under a key no longer listed) counts as none, so the request fails authentication.
 */
export function openedOrEmpty(
  secrets: ChannelSecrets,
  connection: { id: string; secrets: Record<string, string | undefined> },
  field: string,
): string {
  try {
    return secrets.open(connection, field);
  } catch (error) {
    if (error instanceof SecretDecryptError) return '';
    throw error;
  }
}

/** The connections' part in the start-up re-seal. */
const CONNECTION_RESEAL = jsonSecretsReseal<SealedConnectionRow>(CONNECTION_TABLE, UNBOUND_CONTEXT, {
  candidates: connectionsToReseal,
  store: storeResealedConnection,
});

/** Re-seals connection secrets of an older form or under another key (start-up). */
export function resealConnectionSecrets(db: Queryable, secrets: RowSecrets) {
  return resealRows(db, secrets, CONNECTION_RESEAL);
}
