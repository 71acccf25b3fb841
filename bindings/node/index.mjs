// The ESM entry point: the addon is loaded once, by the CommonJS loader napi-rs generates.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Repo } = require('./index.js')

export { Repo }
export default { Repo }
