// What a session can make the page link to or load: links only for http:, https: and mailto:
// (never javascript:, data:, vbscript:, file:), images only from data:image URLs and the page's own
// origin unless remote images are allowed; DataView renders by those rules, and webPage's content
// security policy and meta tag follow the `remoteImages` option.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { DataBlock } from '../../lib/core/messages.js'
import { webPage } from '../../lib/node.js'
import { DataView } from '../../web/components/DataView.js'
import { imageSrc, linkHref } from '../../web/urls.js'

const test = suite('web/urls')
const BASE = 'http://127.0.0.1:8787/?session=s'
const HOSTILE = ['javascript:alert(1)', ' JavaScript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'file:///etc/passwd', 'blob:http://127.0.0.1:8787/x', 'ftp://x.example/a']

test('links: only http, https and mailto', () => {
  assert.is(linkHref('https://example.com/a?b=1', BASE), 'https://example.com/a?b=1')
  assert.is(linkHref('http://example.com/', BASE), 'http://example.com/')
  assert.is(linkHref('mailto:someone@example.com', BASE), 'mailto:someone@example.com')
  assert.is(linkHref('/files/report.pdf', BASE), 'http://127.0.0.1:8787/files/report.pdf')
  for (const url of HOSTILE) assert.is(linkHref(url, BASE), null, url)
})

test('images: data:image and the page\'s own origin; other origins only when allowed', () => {
  const own = { base: BASE, remote: false }
  assert.is(imageSrc('data:image/png;base64,AAAA', own), 'data:image/png;base64,AAAA')
  assert.is(imageSrc('/img/chart.png', own), 'http://127.0.0.1:8787/img/chart.png')
  assert.is(imageSrc('https://tracker.example/pixel.gif?who=me', own), null, 'no beacon by default')
  assert.is(imageSrc('http://127.0.0.1:9999/x.png', own), null, 'another port is another origin')
  assert.is(imageSrc('https://cdn.example/a.png', { base: BASE, remote: true }), 'https://cdn.example/a.png')
  for (const url of HOSTILE) {
    assert.is(imageSrc(url, own), null, url)
    assert.is(imageSrc(url, { base: BASE, remote: true }), null, url)
  }
})

interface VNode { type: unknown; props: Record<string, unknown> }
const view = (block: DataBlock, remote = false) => DataView({ block, base: BASE, remote }) as unknown as VNode
const urlBlock = (url: string, media_type: string): DataBlock => ({ type: 'data', id: 'd1', source: { type: 'url', url, media_type } } as DataBlock)

test('DataView never renders a hostile URL as a link or an image, and loads no remote image by default', () => {
  for (const url of HOSTILE)
    for (const media of ['image/png', 'application/pdf']) {
      const node = view(urlBlock(url, media))
      assert.is(node.type, 'span', `${url} ${media}`)
      assert.is(node.props.href, undefined)
      assert.is(node.props.src, undefined)
    }
  const remote = view(urlBlock('https://tracker.example/pixel.gif', 'image/gif'))
  assert.is(remote.type, 'a', 'a remote image is offered as a link to open, not loaded')
  assert.is(remote.props.href, 'https://tracker.example/pixel.gif')
  assert.is(view(urlBlock('https://cdn.example/a.png', 'image/png'), true).type, 'img')
  assert.is(view(urlBlock('/own.png', 'image/png')).props.src, 'http://127.0.0.1:8787/own.png')
  const file = view({ type: 'data', id: 'd2', source: { type: 'base64', data: 'PGgxPmhpPC9oMT4=', media_type: 'text/html' } } as DataBlock)
  assert.is(file.type, 'button', 'base64 data of another kind is a download made on click, not a data: link')
  const picture = view({ type: 'data', id: 'd3', source: { type: 'base64', data: 'AAAA', media_type: 'image/png' } } as DataBlock)
  assert.is(picture.props.src, 'data:image/png;base64,AAAA')
})

test('webPage: images from its own origin and data: only, unless remoteImages (CSP and the page\'s meta tag)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-page-'))
  try {
    writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head><title>t</title></head><body></body></html>')
    const strict = await webPage({ dir })(new Request('http://x/'))
    const csp = strict!.headers.get('content-security-policy')!
    assert.match(csp, "img-src 'self' data:;")
    assert.not.match(csp, 'https:')
    assert.not.match(await strict!.text(), 'agentlog-remote-images')
    const open = await webPage({ dir, remoteImages: true })(new Request('http://x/'))
    assert.match(open!.headers.get('content-security-policy')!, "img-src 'self' data: https: http:;")
    assert.match(await open!.text(), '<meta name="agentlog-remote-images" content="allow">\n</head>')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
