// A data block: an image shown inline (base64, or a URL the page may load: web/urls.ts), a URL
// offered as a link only when it is http(s) or mailto, and base64 data of another kind offered as
// a download made on click (no data: link in the page). Anything else is shown as text.
import type { DataBlock } from '../../lib/core/messages.js'
import { html } from '../html.js'
import { imageSrc, linkHref, remoteImagesAllowed } from '../urls.js'

const here = () => (typeof location === 'undefined' ? 'http://localhost/' : location.href)

/** Saves base64 data as a file, through a Blob the page makes (no link to data: in the page). */
const download = (block: DataBlock & { source: { type: 'base64' } }) => {
  const bytes = Uint8Array.from(atob(block.source.data), (c) => c.charCodeAt(0))
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }))
  const a = document.createElement('a')
  a.href = url
  a.download = block.name ?? 'data'
  a.click()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}

export const DataView = ({ block, base = here(), remote = remoteImagesAllowed() }: { block: DataBlock; base?: string; remote?: boolean }) => {
  const { source } = block
  const label = block.name ?? source.media_type
  const image = source.media_type.startsWith('image/')
  if (source.type === 'base64') {
    const src = image ? imageSrc(`data:${source.media_type};base64,${source.data}`, { base, remote }) : null
    if (src) return html`<img class="data" src=${src} alt=${block.name ?? `Image (${source.media_type})`} />`
    return html`<button type="button" class="data" onClick=${() => download(block as DataBlock & { source: { type: 'base64' } })}>Download ${label}</button>`
  }
  const src = image ? imageSrc(source.url, { base, remote }) : null
  if (src) return html`<img class="data" src=${src} alt=${block.name ?? `Image (${source.media_type})`} />`
  const href = linkHref(source.url, base)
  const text = image ? `Image not loaded (${label}): ${source.url}` : `${label}: ${source.url}`
  return href
    ? html`<a class="data" href=${href} target="_blank" rel="noopener noreferrer nofollow">${text}</a>`
    : html`<span class="data">${text}</span>`
}
