import { decryptSecret, encryptSecret, secretKeyring } from '../../shared/secrets.js';

/**
 * Secrets of channel connections at rest (access tokens, app secrets, verify tokens, auth
 * tokens): sealed by the shared tenant-secret encryption (AES-256-GCM, key ids for rotation,
 * PARLEY_SECRET_KEY or the data directory's key file) with the purpose `channel-connection`
 * bound in, so they cannot be passed off as another kind of secret.
 */
export interface ChannelSecrets {
  seal(plain: string): string;
  open(stored: string): string;
}

const CONTEXT = 'channel-connection';

export function channelSecretsFor(config: {
  secretKey: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
}): ChannelSecrets {
  const keyring = () => secretKeyring(config);
  return {
    seal: (plain) => encryptSecret(keyring(), plain, CONTEXT),
    open: (stored) => decryptSecret(keyring(), stored, CONTEXT),
  };
}
