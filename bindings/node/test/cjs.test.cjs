// The Node package through its CommonJS entry point.
const assert = require('node:assert/strict')
const { test } = require('node:test')

const citegate = require('citegate-node')

test('require() gives the same Repo as import', async () => {
  const esm = await import('citegate-node')
  assert.equal(typeof citegate.Repo, 'function')
  assert.equal(esm.Repo, citegate.Repo)
})
