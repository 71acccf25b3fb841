// The Node package through its ESM entry point, against `citegate gate` on the shared fixtures.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Repo } from 'citegate-node'

import { answers, buildRepo, cli, retrieved } from './fixtures.mjs'

const dir = buildRepo()
const MODES = [['--retrieved', 'r.json'], [], ['--no-retrieval']]
const options = (mode) => ({
  retrieved: mode[0] === '--retrieved' ? retrieved : undefined,
  noRetrieval: mode[0] === '--no-retrieval',
})

test('every shared answer gets the CLI verdict', { skip: !process.env.CITEGATE_BIN && 'set CITEGATE_BIN' }, async () => {
  const repo = new Repo(dir)
  for (const mode of MODES) {
    for (const answer of answers) {
      const verdict = await repo.gate(answer, options(mode))
      const out = cli(dir, ['gate', ...mode], answer)
      assert.equal(out.code, verdict.passed ? 0 : 1, answer)
      assert.equal(verdict.fidelity, mode[0] === '--no-retrieval' ? 'code-only' : 'retrieval')
      if (verdict.passed) {
        assert.equal(verdict.refusal, null)
        assert.deepEqual(verdict.violations, [])
        assert.equal(out.stdout, answer.replace(/^\uFEFF/, '').trimEnd() + '\n')
      } else {
        const printed = JSON.parse(out.stdout)
        assert.deepEqual(verdict.refusal, printed, answer)
        const violations = verdict.violations.map((v) => JSON.parse(JSON.stringify(v)))
        assert.deepEqual(violations, printed.violations, answer)
      }
    }
  }
})

test('gateMany is gate --jsonl', { skip: !process.env.CITEGATE_BIN && 'set CITEGATE_BIN' }, async () => {
  const repo = new Repo(dir)
  const verdicts = await repo.gateMany(answers, { retrieved })
  const out = cli(dir, ['gate', '--jsonl', '--retrieved', 'r.json'], answers.join('\n') + '\n')
  const lines = out.stdout.trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(lines.length, verdicts.length)
  verdicts.forEach((v, i) => {
    assert.equal(v.passed, lines[i].passed)
    assert.equal(v.fidelity, lines[i].fidelity)
    if (!v.passed) assert.deepEqual(v.refusal, lines[i].answer)
  })
  assert.equal(out.code, verdicts.every((v) => v.passed) ? 0 : 1)
})

test('an object answer gets the verdict of its text', async () => {
  const repo = new Repo(dir)
  let checked = 0
  for (const text of answers) {
    let value
    try {
      value = JSON.parse(text)
    } catch {
      continue
    }
    if (typeof value !== 'object' || Array.isArray(value) || value === null) continue
    // A key written twice, a number past a double's digits: an object cannot hold them. A lone
    // surrogate: Node-API hands the addon U+FFFD in its place (pass the JSON text to have it
    // refused, as the CLI refuses it).
    if (text.split('"citations"').length > 2 || /\d\.\d{17}/.test(text) || /\\ud[89a-f]/i.test(text)) continue
    const asObject = await repo.gate(value, { retrieved })
    const asText = await repo.gate(JSON.stringify(value), { retrieved })
    assert.deepEqual(asObject, asText, text)
    checked++
  }
  assert.ok(checked >= 15, `${checked}`)
})

test('a grounded answer passes, an invented one is refused, without a payload it fails closed', async () => {
  const repo = new Repo(dir, 'HEAD')
  const cite = { path: 'src/cache.rs', startLine: 2, endLine: 2, quote: 'pub const TTL_SECONDS: u64 = 30;' }
  const ok = await repo.gate({ summary: '30 s', citations: [cite] }, { retrieved })
  assert.equal(ok.passed, true)
  const bad = await repo.gate({ summary: '30 s', citations: [{ ...cite, path: 'src/nope.rs' }] }, { retrieved })
  assert.equal(bad.passed, false)
  assert.ok(bad.violations.some((v) => v.rule === 'invented-path' && v.citation === 'src/nope.rs:2'))
  assert.equal(bad.refusal.refuse.reason, 'no_span_in_retrieval')
  assert.equal((await repo.gate({ summary: '30 s', citations: [cite] })).passed, false)
  const codeOnly = await repo.gate({ summary: '30 s', citations: [cite] }, { noRetrieval: true })
  assert.equal(codeOnly.fidelity, 'code-only')
})

test('errors carry the CLI messages', async () => {
  assert.throws(() => new Repo(dir, 'no-such-rev'), (e) => {
    const out = cli(dir, ['gate', '--target', 'no-such-rev'], '{}')
    return out === null || out.stderr.includes(e.message)
  })
  const repo = new Repo(dir)
  await assert.rejects(repo.gate('{}', { retrieved: [{ path: 'a' }] }), /chunk 0: needs `path` and `start_line`/)
  await assert.rejects(repo.cite('ab'), /at least 3/)
})

test('audit is the JSON report, cite finds a quote', async () => {
  const repo = new Repo(dir)
  const report = await repo.audit(['docs'])
  assert.equal(report.version, 1)
  assert.ok(report.findings.some((f) => f.rule === 'invented-path'))
  const found = await repo.cite('pub const TTL_SECONDS')
  assert.equal(found.count, 1)
  assert.equal(found.places[0].citation, 'src/cache.rs:2')
  assert.equal(found.revision, repo.revision)
})

test('gates in flight together (on the thread pool) each settle with their own verdict', async () => {
  const repo = new Repo(dir)
  const alone = []
  for (const a of answers) alone.push(await repo.gate(a, { retrieved }))
  const together = await Promise.all(answers.map((a) => repo.gate(a, { retrieved })))
  assert.deepEqual(together, alone)
})
