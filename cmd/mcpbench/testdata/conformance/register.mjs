// Loaded with node --import before Node 22: the conformance harness imports
// globSync from fs (for a command the tests never run), which Node 20 lacks.
import { register } from 'node:module';
register('./hooks.mjs', import.meta.url);
