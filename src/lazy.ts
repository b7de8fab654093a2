/**
 * A value created on first use and shared afterwards, e.g. an SDK client whose module is
 * imported only then: a deployment that never uses the SDK does not hold it in memory.
 */
export function lazy<T>(create: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= create());
}
