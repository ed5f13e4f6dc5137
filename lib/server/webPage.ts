// The web page as static files (Node only, in `agentlog/node`): `webPage()` answers GET / and the
// page's few assets from dist/web (built by `npm run build:web`) and returns null for any other
// request, so `withWebPage(handler)` puts the page in front of the server's fetch handler. Images
// load only from the page's origin and data: (CSP and the page's own check, web/urls.ts) unless
// `remoteImages` allows any http(s) image.
import { checkKnownKeys } from '../core/strictOptions.js'
import { readFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

type Handler = (request: Request) => Promise<Response>

const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.js.map': { file: 'app.js.map', type: 'application/json; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
}

export interface WebPageOptions {
  /** Where the built page is (default dist/web). */
  dir?: string
  /** Let the page load images from any http(s) URL a session holds (default: its own origin and data: only). */
  remoteImages?: boolean
}

const security = (remoteImages: boolean) => ({
  'content-security-policy': `default-src 'self'; img-src 'self' data:${remoteImages ? ' https: http:' : ''}; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
})

/** The meta tag that tells the page (web/urls.ts) remote images are allowed. */
const REMOTE_IMAGES_META = '<meta name="agentlog-remote-images" content="allow">'

/** dist/web beside the built module (dist/lib/server/webPage.js), or dist/web of the tree when run from source (web/ there holds the sources, without app.js). */
const defaultDir = (): string => {
  const built = fileURLToPath(new URL('../../web/', import.meta.url))
  return existsSync(`${built}app.js`) ? built : fileURLToPath(new URL('../../dist/web/', import.meta.url))
}

export const webPage = (options: WebPageOptions = {}) => {
  checkKnownKeys('webPage', options, ['dir', 'remoteImages'])
  const { dir = defaultDir(), remoteImages = false } = options
  const SECURITY = security(remoteImages)
  return async (request: Request): Promise<Response | null> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null
    const asset = ASSETS[new URL(request.url).pathname]
    if (!asset) return null
    try {
      const file = await readFile(`${dir}/${asset.file}`)
      const body = remoteImages && asset.file === 'index.html' ? file.toString('utf8').replace('</head>', `${REMOTE_IMAGES_META}\n</head>`) : file
      return new Response(request.method === 'HEAD' ? null : body, { headers: { 'content-type': asset.type, ...SECURITY } })
    } catch {
      return new Response('The web page is not built: run `npm run build:web`.', { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' } })
    }
  }
}

/** The page at / in front of a fetch handler (the server): other requests go to `handler`, whose
 * own properties (such as `authenticated`, which listen() checks) the result keeps. */
export const withWebPage = <H extends Handler>(handler: H, options?: WebPageOptions): H => {
  const page = webPage(options)
  return Object.assign(async (request: Request) => (await page(request)) ?? handler(request), handler)
}
