/** Types of scan-test-logs.mjs for the tests that use it. */
export declare const SECRET_PATTERNS: RegExp[];
export declare function findSecrets(text: string, listed: Iterable<string>): string[];
export declare function scanDirectory(dir: string): { lines: number; listed: number; findings: string[] };
