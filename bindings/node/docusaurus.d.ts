/** `citegate-node/docusaurus`: the Docusaurus plugin that audits the site's docs as it loads them. */
export interface CitegateDocusaurusOptions {
  /**
   * What a finding at `failOn` or worse does, as `onBrokenLinks`: `'throw'` (default) fails the
   * build, `'warn'` logs it, `'ignore'` skips the audit.
   */
  onBrokenCitations?: 'throw' | 'warn' | 'ignore'
  /** The least severity `onBrokenCitations` applies to (default `'error'`); the rest are logged. */
  failOn?: 'error' | 'warning'
  /**
   * The folders to audit, relative to the site (default: each docs plugin's `path` and its
   * `versioned_docs` folder).
   */
  paths?: string[]
}

/** The plugin, as Docusaurus calls it with the site's context and these options. */
declare function citegate(
  context: { siteDir: string; siteConfig: Record<string, unknown> },
  options?: CitegateDocusaurusOptions,
): { name: 'citegate'; getPathsToWatch(): string[]; loadContent(): Promise<void> }

/** The folders the plugin audits by default in a site (relative to it), sorted. */
export declare function docsFolders(siteDir: string, siteConfig: Record<string, unknown>): string[]

export default citegate
