// `citegate-node/docusaurus`: a Docusaurus plugin that audits the site's docs as it loads them, in
// `docusaurus build` and on every reload of `docusaurus start`. A thin adapter over the addon: the
// findings, their messages and their order are the engine's (`Repo.auditLines`, the findings of
// `citegate audit` on the same folders, each on one line); this file only chooses the folders and
// what a finding does to the build.
//
//   plugins: [['citegate-node/docusaurus', { onBrokenCitations: 'throw' }]]
//
// `onBrokenCitations` works as Docusaurus's `onBrokenLinks`: 'throw' (the default) fails the build
// on a finding at `failOn` or worse, 'warn' logs it, 'ignore' skips the audit. The folders are the
// docs plugins' (the classic preset's `docs.path`, each `@docusaurus/plugin-content-docs`'s
// `path`, default `docs`) and their versions (`versioned_docs/`, `ID_versioned_docs/`), unless
// `paths` names them.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const ON_BROKEN = ['throw', 'warn', 'ignore']
const FAIL_ON = ['error', 'warning']
const DOCS_PLUGIN = /^(@docusaurus\/plugin-content-docs|(@docusaurus\/)?content-docs|docusaurus-plugin-content-docs)$/
const CLASSIC = /^(@docusaurus\/preset-classic|classic|docusaurus-preset-classic)$/

/** A `[name, options]` entry of `presets` or `plugins` (or a bare name) as its two parts. */
function entry(item) {
  if (Array.isArray(item)) return [item[0], item[1] ?? {}]
  return [item, {}]
}

/** The docs plugins' `{id, path}`: from the classic preset and from `plugins`. */
function docsPlugins(siteConfig) {
  const found = []
  for (const item of siteConfig.presets ?? []) {
    const [name, options] = entry(item)
    if (typeof name === 'string' && CLASSIC.test(name) && options.docs !== false) {
      found.push({ id: options.docs?.id ?? 'default', path: options.docs?.path ?? 'docs' })
    }
  }
  for (const item of siteConfig.plugins ?? []) {
    const [name, options] = entry(item)
    if (typeof name === 'string' && DOCS_PLUGIN.test(name)) {
      found.push({ id: options.id ?? 'default', path: options.path ?? 'docs' })
    }
  }
  return found
}

/** The folders to audit, relative to the site: each docs plugin's, and its versions' folder. */
function docsFolders(siteDir, siteConfig) {
  const folders = []
  for (const { id, path: docs } of docsPlugins(siteConfig)) {
    const versions = id === 'default' ? 'versioned_docs' : `${id}_versioned_docs`
    for (const folder of [docs, versions]) {
      if (fs.existsSync(path.resolve(siteDir, folder))) folders.push(folder)
    }
  }
  return [...new Set(folders)].sort()
}

/** Docusaurus's own logger when the site has it (it always does: `@docusaurus/core` needs it). */
function siteLogger(siteDir) {
  try {
    const { createRequire } = require('node:module')
    return createRequire(path.join(siteDir, 'package.json'))('@docusaurus/logger').default
  } catch {
    return { warn: (m) => console.warn(`[WARNING] ${m}`), info: (m) => console.log(`[INFO] ${m}`) }
  }
}

function checked(options) {
  // `id`: Docusaurus's own, for a plugin used twice.
  const { onBrokenCitations = 'throw', failOn = 'error', paths, id: _id, ...rest } = options ?? {}
  const unknown = Object.keys(rest)
  if (unknown.length) {
    throw new Error(`citegate-node/docusaurus: unknown option ${unknown.map((k) => `\`${k}\``).join(', ')} (known: onBrokenCitations, failOn, paths)`)
  }
  if (!ON_BROKEN.includes(onBrokenCitations)) {
    throw new Error(`citegate-node/docusaurus: onBrokenCitations is 'throw', 'warn' or 'ignore', not ${JSON.stringify(onBrokenCitations)}`)
  }
  if (!FAIL_ON.includes(failOn)) {
    throw new Error(`citegate-node/docusaurus: failOn is 'error' or 'warning', not ${JSON.stringify(failOn)}`)
  }
  if (paths !== undefined && !(Array.isArray(paths) && paths.every((p) => typeof p === 'string'))) {
    throw new Error('citegate-node/docusaurus: paths is a list of folders (relative to the site)')
  }
  return { onBrokenCitations, failOn, paths }
}

/** The plugin: Docusaurus calls it with the site's context and the options given in its config. */
function citegate(context, options) {
  const { onBrokenCitations, failOn, paths } = checked(options)
  const { siteDir, siteConfig } = context
  const folders = paths ?? docsFolders(siteDir, siteConfig)
  const fails = (severity) => severity === 'error' || (failOn === 'warning' && severity === 'warning')
  return {
    name: 'citegate',
    getPathsToWatch() {
      return folders.map((folder) => path.join(path.resolve(siteDir, folder), '**/*.{md,mdx}'))
    },
    async loadContent() {
      if (onBrokenCitations === 'ignore' || folders.length === 0) return
      // Opened at every load: `docusaurus start` reloads after a commit too, and HEAD moved.
      const { Repo } = require('./index.cjs')
      const lines = await new Repo(siteDir).auditLines(folders)
      const logger = siteLogger(siteDir)
      const broken = lines.filter((l) => fails(l.severity))
      for (const l of lines.filter((l) => !fails(l.severity))) logger.warn(`citegate: ${l.severity}: ${l.text}`)
      if (broken.length === 0) return
      const s = broken.length === 1 ? '' : 's'
      const message =
        `citegate: ${broken.length} finding${s} at ${failOn} or worse in ${folders.join(', ')}:\n` +
        broken.map((l) => `- ${l.severity}: ${l.text}`).join('\n')
      if (onBrokenCitations === 'throw') throw new Error(message)
      logger.warn(message)
    },
  }
}

module.exports = citegate
module.exports.default = citegate
module.exports.docsFolders = docsFolders
