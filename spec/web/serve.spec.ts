// `agentlog serve --scripted` as a real child process serves the web page at /: the page loads in
// Chromium, starts a session and shows the scripted model's answer; the page's assets carry a
// content security policy and the page's routes (tools, fork) answer.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { buildWeb } from '../../scripts/buildWeb.js'
import { chromiumAvailable, launchBrowser } from './helpers/browser.js'
import { lastReply, newSession, send, waitReady } from './helpers/page.js'

const test = suite('web/serve')
const bin = fileURLToPath(new URL('../../bin/agentlog.js', import.meta.url))

const start = async (args: string[] = []) => {
  await buildWeb()
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-web-serve-'))
  const child = spawn(process.execPath, [bin, 'serve', '--scripted', '--port', '0', '--store', dir, ...args], { env: { PATH: process.env.PATH ?? '' } })
  let out = ''
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d
      const found = /the web page is at (http:\/\/\S+)\//.exec(out)
      if (found) resolve(found[1])
    })
    void exited.then(() => reject(new Error(`serve exited: ${out}`)))
  })
  return { child, dir, exited, url }
}

test('agentlog serve --scripted serves the page at /, and the page talks to it', async () => {
  const { child, dir, exited, url } = await start()
  const browser = await launchBrowser()
  try {
    const index = await fetch(`${url}/`)
    assert.is(index.status, 200)
    assert.match(index.headers.get('content-security-policy') ?? '', "default-src 'self'")
    assert.match(await index.text(), '<script type="module" src="./app.js">')
    assert.match((await fetch(`${url}/app.js`)).headers.get('content-type') ?? '', 'text/javascript')
    const page = await browser.page()
    const id = await newSession(page, url)
    await send(page, 'hi, draw an image') // the demo's image step ends without waiting for the person
    await waitReady(page)
    assert.match(await lastReply(page).textContent() ?? '', 'scripted model')
    const tools = (await (await fetch(`${url}/sessions/${id}/tools`)).json()) as { tools: unknown[] }
    assert.ok(Array.isArray(tools.tools))
    assert.is((await fetch(`${url}/sessions/nope/tools`)).status, 404)
    const bad = await fetch(`${url}/sessions/${id}/fork`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq: -1 }) })
    assert.is(bad.status, 400)
    assert.is(((await bad.json()) as { code: string }).code, 'INVALID_INPUT')
  } finally {
    await browser.close()
    child.kill('SIGTERM')
    assert.is(await exited, 0)
    rmSync(dir, { recursive: true, force: true })
  }
})

test('with --token the page sends the token given in its address; without it the API refuses', async () => {
  const token = 'page-spec-token-1'
  const { child, dir, exited, url } = await start(['--token', token])
  const browser = await launchBrowser()
  try {
    const page = await browser.page()
    await page.goto(`${url}/`)
    await page.getByRole('navigation', { name: 'Sessions' }).getByRole('status').filter({ hasText: 'The server needs an access token to list the sessions' }).waitFor()
    const id = await newSession(page, `${url}/?token=${token}`)
    await send(page, 'hi, draw an image') // the demo's image step ends without waiting for the person
    await waitReady(page)
    assert.match(await lastReply(page).textContent() ?? '', 'scripted model')
    assert.is((await fetch(`${url}/sessions/${id}`)).status, 401)
    assert.is((await fetch(`${url}/sessions/${id}`, { headers: { authorization: `Bearer ${token}` } })).status, 200)
  } finally {
    await browser.close()
    child.kill('SIGTERM')
    assert.is(await exited, 0)
    rmSync(dir, { recursive: true, force: true })
  }
})

test('with --token the page takes the token from its address once: the address loses it, the page works and after a reload too', async () => {
  const token = 'page-spec-token-2'
  const { child, dir, exited, url } = await start(['--token', token])
  const browser = await launchBrowser()
  try {
    const page = await browser.page()
    const id = await newSession(page, `${url}/?token=${token}`)
    const address = await page.evaluate(() => location.href)
    assert.not.match(address, token)
    assert.is(address, `${url}/#/sessions/${encodeURIComponent(id)}`)
    await send(page, 'hi, draw an image') // the demo's image step ends without waiting for the person
    await waitReady(page)
    assert.match(await lastReply(page).textContent() ?? '', 'scripted model')
    await page.reload()
    await lastReply(page).filter({ hasText: 'scripted model' }).waitFor()
    await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: new RegExp(`^${id}`) }).waitFor()
    assert.is(await page.getByRole('navigation', { name: 'Sessions' }).getByRole('status').count(), 0)
    await send(page, 'again, the image')
    await waitReady(page)
    assert.not.match(await page.evaluate(() => location.href), token)
    assert.is(await page.evaluate(() => sessionStorage.getItem('agentlog.token')), token)
    assert.equal(browser.errors, [])
  } finally {
    await browser.close()
    child.kill('SIGTERM')
    assert.is(await exited, 0)
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a refused token offers a field; a right token typed there opens the page, and never goes into the address', async () => {
  const token = 'page-spec-token-3'
  const { child, dir, exited, url } = await start(['--token', token])
  const browser = await launchBrowser()
  try {
    const page = await browser.page()
    await page.goto(`${url}/?token=wrong`)
    const field = page.getByLabel('Access token')
    await field.fill('still-wrong')
    await page.getByRole('button', { name: 'Use token' }).click()
    await page.waitForLoadState()
    await field.waitFor()
    await field.fill(token)
    await page.getByRole('button', { name: 'Use token' }).click()
    await page.getByText('No sessions yet.').waitFor()
    assert.is(await field.count(), 0)
    const id = await newSession(page, page.url())
    await send(page, 'hi, draw an image') // the demo's image step ends without waiting for the person
    await waitReady(page)
    assert.match(await lastReply(page).textContent() ?? '', 'scripted model')
    assert.is(page.url(), `${url}/#/sessions/${encodeURIComponent(id)}`)
  } finally {
    await browser.close()
    child.kill('SIGTERM')
    assert.is(await exited, 0)
    rmSync(dir, { recursive: true, force: true })
  }
})

if (chromiumAvailable('web/serve')) test.run()
