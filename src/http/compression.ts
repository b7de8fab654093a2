import { constants } from 'node:zlib';
import type { FastifyCompressOptions } from '@fastify/compress';

/**
 * Responses are compressed where it pays: JSON bodies of 1 KB and more (lists, the OpenAPI
 * document), with brotli at a low quality (fast enough for every response; quality 11 costs
 * tens of milliseconds per 100 KB) or gzip, as the client accepts. Streams of server-sent events
 * are written to the socket directly and are never buffered by it. The dashboard's assets are
 * compressed once, at build time (web-app.ts serves them precompressed).
 */
export const compressionOptions: FastifyCompressOptions = {
  global: true,
  // Request bodies are never inflated: a compressed upload could unpack far past the body limit.
  globalDecompression: false,
  threshold: 1024,
  encodings: ['br', 'gzip'],
  customTypes: /^(application\/(.+\+)?json|text\/(html|css|javascript|plain))\b/,
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  zlibOptions: { level: 6 },
};
