// The Docusaurus plugin (`citegate-node/docusaurus`) without Docusaurus: its options, the folders
// it audits in a site, and what a finding does to the load (a real site is built with it by
// `tests/it/node_binding/docusaurus.rs`).
const assert = require('node:assert/strict')
const { mkdirSync, mkdtempSync, writeFileSync } = require('node:fs')
const { tmpdir } = require('node:os')
const { join } = require('node:path')
const { test } = require('node:test')

const citegate = require('citegate-node/docusaurus')

test('options are checked when the site loads the plugin', () => {
  const context = { siteDir: tmpdir(), siteConfig: {} }
  assert.throws(() => citegate(context, { onBrokenCitation: 'warn' }), /unknown option `onBrokenCitation`/)
  assert.throws(() => citegate(context, { onBrokenCitations: 'log' }), /'throw', 'warn' or 'ignore', not "log"/)
  assert.throws(() => citegate(context, { failOn: 'note' }), /failOn is 'error' or 'warning'/)
  assert.throws(() => citegate(context, { paths: 'docs' }), /paths is a list/)
  assert.equal(citegate(context, { id: 'second' }).name, 'citegate')
})

test('the folders are the docs plugins’ and their versions’', () => {
  const site = mkdtempSync(join(tmpdir(), 'citegate-site-'))
  for (const folder of ['docs', 'versioned_docs', 'api', 'api_versioned_docs', 'guides']) {
    mkdirSync(join(site, folder))
  }
  const presets = [['classic', { blog: false }]]
  const plugins = [['@docusaurus/plugin-content-docs', { id: 'api', path: 'api' }], 'ideal-image']
  assert.deepEqual(citegate.docsFolders(site, { presets, plugins }), ['api', 'api_versioned_docs', 'docs', 'versioned_docs'])
  const none = [['@docusaurus/preset-classic', { docs: false }]]
  assert.deepEqual(citegate.docsFolders(site, { presets: none }), [])
  const moved = [['classic', { docs: { path: 'guides' } }]]
  assert.deepEqual(citegate.docsFolders(site, { presets: moved }), ['guides', 'versioned_docs'])
})

test('a broken citation fails the load, or is logged, as onBrokenCitations says', async () => {
  const { buildRepo } = await import('./fixtures.mjs')
  const site = buildRepo()
  mkdirSync(join(site, 'docs'), { recursive: true })
  writeFileSync(join(site, 'docs', 'broken.md'), '# Broken\n\nSee `src/nope.rs:1`.\n')
  const context = { siteDir: site, siteConfig: { presets: [['classic', {}]] } }
  await assert.rejects(citegate(context).loadContent(), (e) => {
    // The shared repository's own doc cites a file it lacks too (`src/evict.rs`).
    assert.match(e.message, /^citegate: 2 findings at error or worse in docs:\n/)
    assert.match(e.message, /\n- error: docs\/broken.md:3:6: invented-path: `src\/nope.rs` does not exist at [0-9a-f]{8}\n/)
    return true
  })
  const warned = []
  const warn = console.warn
  console.warn = (m) => warned.push(m)
  try {
    await citegate(context, { onBrokenCitations: 'warn' }).loadContent()
    await citegate(context, { onBrokenCitations: 'ignore' }).loadContent()
  } finally {
    console.warn = warn
  }
  assert.equal(warned.length, 1)
  assert.match(warned[0], /docs\/broken.md:3:6: invented-path/)
})
