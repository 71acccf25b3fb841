// The package inside someone else's server: a hostile body is a rejected promise with
// `code: 'InvalidArg'` (never a crash of the process), and `audit` reads nothing outside the work
// tree. Driven through a real `node:http` server, as the guide's Express route receives a body.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

import { Repo } from 'citegate-node'

import { buildRepo } from './fixtures.mjs'

const dir = buildRepo()
const cite = { path: 'src/cache.rs', startLine: 2, endLine: 2, quote: 'pub const TTL_SECONDS: u64 = 30;' }
const good = { summary: '30 s', citations: [cite] }
const invalid = (pattern) => (e) => e.code === 'InvalidArg' && pattern.test(e.message)

/** A server whose one route gates the JSON body it receives, as the guide's route does. */
async function serve(repo) {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', async () => {
      try {
        const verdict = await repo.gate(JSON.parse(body), { noRetrieval: true })
        res.writeHead(200).end(JSON.stringify({ passed: verdict.passed }))
      } catch (e) {
        res.writeHead(400).end(JSON.stringify({ code: e.code, message: e.message }))
      }
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

async function post(server, body) {
  const { port } = server.address()
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, signal: AbortSignal.timeout(20000) })
  return { status: res.status, json: await res.json() }
}

test('a body nested 20,000 deep is refused with where, and the server goes on', async () => {
  const server = await serve(new Repo(dir))
  try {
    const deep = '['.repeat(20000) + ']'.repeat(20000)
    const body = `{"summary": "30 s", "citations": ${deep}}`
    assert.ok(body.length > 40000)
    const refused = await post(server, body)
    assert.equal(refused.status, 400)
    assert.equal(refused.json.code, 'InvalidArg')
    assert.match(refused.json.message, /^answer\.citations(\[0\])+: nested deeper than 128$/)
    const after = await post(server, JSON.stringify(good))
    assert.deepEqual(after, { status: 200, json: { passed: true } })
  } finally {
    server.close()
  }
})

test('an object that refers to itself, a value too large or not JSON is rejected as input', async () => {
  const repo = new Repo(dir)
  const itself = { summary: 'x' }
  itself.self = itself
  await assert.rejects(repo.gate(itself, { noRetrieval: true }), invalid(/^answer(\.self)+\.summary: nested deeper than 128$/))
  const loop = []
  loop.push(loop)
  await assert.rejects(repo.gate(good, { retrieved: loop }), invalid(/^retrieved(\[0\])+: nested deeper than 128$/))
  await assert.rejects(repo.gateMany([good, itself], { noRetrieval: true }), invalid(/^answers\[1\](\.self)+\.summary: nested/))
  const long = 'k'.repeat(1 << 20)
  let keyed = {}
  for (let i = 0; i < 200; i++) keyed = { [long]: keyed }
  await assert.rejects(repo.gate(keyed, { noRetrieval: true }), (e) => e.code === 'InvalidArg' && e.message.length < 6000)
  const huge = { summary: 'x'.repeat(17 << 20) }
  await assert.rejects(repo.gate(huge, { noRetrieval: true }), invalid(/^answer\.summary: more than 16 MiB$/))
  await assert.rejects(repo.gate('x'.repeat(17 << 20)), invalid(/^answer: more than 16 MiB$/))
  await assert.rejects(repo.gate({ n: 10n }), invalid(/^answer\.n: this value is not JSON$/))
  await assert.rejects(repo.gateMany('not a list'), invalid(/^answers: a value other than an array is not JSON$/))
  // As `JSON.stringify` writes them: `undefined` and functions left out, integers as integers.
  const written = await repo.gate({ ...good, extra: undefined, f() {} }, { noRetrieval: true })
  assert.deepEqual(written, await repo.gate(JSON.stringify(good), { noRetrieval: true }))
  assert.equal(written.passed, true)
})

test('audit reads nothing outside the work tree', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'citegate-outside-'))
  writeFileSync(join(outside, 'leak.md'), '[x](src/cache.rs:2) `sk-live-0123456789`\n')
  mkdirSync(join(dir, 'notes'), { recursive: true })
  symlinkSync(outside, join(dir, 'notes', 'elsewhere'))
  const repo = new Repo(dir)
  for (const path of ['../outside', outside, join(outside, 'leak.md'), 'notes/elsewhere/leak.md', '.git/config']) {
    await assert.rejects(repo.audit([path]), (e) => {
      assert.equal(e.code, 'InvalidArg', `${path}: ${e.message}`)
      assert.ok(e.message.includes(`\`${path}\``), e.message)
      assert.ok(!e.message.includes('sk-live'))
      return true
    })
  }
  const linked = await repo.audit(['notes/elsewhere'])
  assert.ok(!JSON.stringify(linked).includes('sk-live'))
  assert.ok(JSON.stringify(linked).includes('symbolic link'))
})
