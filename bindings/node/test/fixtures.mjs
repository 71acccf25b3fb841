// The shared fixtures (`tests/bindings/` at the repository root, or `CITEGATE_SHARED`): a
// one-commit repository built here with git, the answers, the payload, and `citegate gate` (the
// binary `CITEGATE_BIN`) to compare verdicts with.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const shared = process.env.CITEGATE_SHARED ?? fileURLToPath(new URL('../../../tests/bindings', import.meta.url))

export function buildRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'citegate-node-'))
  cpSync(join(shared, 'repo'), dir, { recursive: true })
  const env = { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' }
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, env, stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-q', '-m', 'code')
  writeFileSync(join(dir, 'r.json'), readFileSync(join(shared, 'retrieved.json')))
  return dir
}

export const answers = readFileSync(join(shared, 'answers.jsonl'), 'utf8').split('\n').filter((l) => l !== '')
export const retrieved = JSON.parse(readFileSync(join(shared, 'retrieved.json'), 'utf8'))

/** `citegate ARGS` in `cwd` on `stdin`: { code, stdout, stderr }, or null without a binary. */
export function cli(cwd, args, stdin) {
  const bin = process.env.CITEGATE_BIN
  if (!bin) return null
  const out = spawnSync(bin, args, { cwd, input: stdin, encoding: 'utf8' })
  return { code: out.status, stdout: out.stdout, stderr: out.stderr }
}
