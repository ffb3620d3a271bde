// All of node:fs, and a globSync that says it needs Node 22.
export * from 'node:fs';
import fs from 'node:fs';
export default fs;
export function globSync() { throw new Error('globSync needs Node 22'); }
