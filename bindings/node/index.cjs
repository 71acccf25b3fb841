// The CommonJS entry point: the loader napi-rs generates (index.js, rewritten by every
// `napi build`), with what it cannot say when no addon matches this platform: how to get one.
// From npm the addon is the optional package for the platform; in a clone it is built there.
const { platform, arch } = process

function noAddon(e) {
  return (
    (e.code === 'MODULE_NOT_FOUND' && /citegate-node-|citegate\.[\w-]+\.node/.test(e.message)) ||
    /^(Failed to load native binding|Unsupported (OS|architecture))/.test(e.message)
  )
}

try {
  module.exports = require('./index.js')
} catch (e) {
  if (!noAddon(e)) throw e
  throw new Error(
    `citegate-node: no addon for ${platform}-${arch} is installed (${e.message.split('\n')[0]}).\n` +
      `In a clone of citegate, build it: cd bindings/node && npm install && npm run build ` +
      `(Rust needed; a release build, minutes).\n` +
      `From npm, the addon comes in an optional dependency (citegate-node-${platform}-${arch}-…): ` +
      `install without --omit=optional, on linux x64 or arm64 (glibc), macOS x64 or arm64, or ` +
      `Windows x64.`,
    { cause: e },
  )
}
