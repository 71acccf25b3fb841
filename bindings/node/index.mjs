// The ESM entry point: the addon is loaded once, by the CommonJS entry point (index.cjs: the
// loader napi-rs generates, and what to run when no addon matches).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Repo } = require('./index.cjs')

export { Repo }
export default { Repo }
