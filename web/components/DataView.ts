// A data block: an image shown inline (base64 or URL), anything else offered as a download.
import type { DataBlock } from '../../lib/messages.js'
import { html } from '../html.js'

export const DataView = ({ block }: { block: DataBlock }) => {
  const src = block.source.type === 'url' ? block.source.url : `data:${block.source.media_type};base64,${block.source.data}`
  return block.source.media_type.startsWith('image/')
    ? html`<img class="data" src=${src} alt=${block.name ?? `Image (${block.source.media_type})`} />`
    : html`<a class="data" href=${src} download=${block.name ?? 'data'}>Download ${block.name ?? block.source.media_type}</a>`
}
