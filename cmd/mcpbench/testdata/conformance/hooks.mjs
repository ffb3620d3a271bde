// Resolves the harness's "fs" to fs-shim.mjs: all of fs, and a globSync.
const shim = new URL('./fs-shim.mjs', import.meta.url).href;
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/conformance/dist/')) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}
