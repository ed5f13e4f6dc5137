// Which URLs from a session (tool results, messages) the page turns into links and images. A link
// only for http:, https: and mailto: (never javascript:, data:, vbscript:, blob: or file:); an
// image only from a data:image URL or the page's own origin, unless the server allows remote
// images (`withWebPage(handler, { remoteImages: true })` says so in a meta tag), so a tool result
// cannot make the page fetch a URL of its choosing (a beacon) by default.

const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:'])

const parse = (url: string, base: string): URL | null => {
  try {
    return new URL(url.trim(), base)
  } catch {
    return null
  }
}

/** The URL to put in an href, or null when it must not be a link. */
export const linkHref = (url: string, base: string): string | null => {
  const parsed = parse(url, base)
  return parsed && LINK_SCHEMES.has(parsed.protocol) ? parsed.href : null
}

/** The URL to put in an img src, or null when the page must not load it. */
export const imageSrc = (url: string, { base, remote }: { base: string; remote: boolean }): string | null => {
  const parsed = parse(url, base)
  if (!parsed) return null
  if (parsed.protocol === 'data:') return /^data:image\/[\w.+-]+[;,]/i.test(parsed.href) ? parsed.href : null
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null
  return remote || parsed.origin === new URL(base).origin ? parsed.href : null
}

/** The server allows images from other origins (a meta tag in the page it serves). */
export const remoteImagesAllowed = (): boolean =>
  typeof document !== 'undefined' && document.querySelector('meta[name="agentlog-remote-images"]')?.getAttribute('content') === 'allow'
