// Makes docs/screenshot.png (the picture in the README): the real server with the scripted
// playbook agent on 127.0.0.1, headless Chromium driving the page as a person would: a greeting,
// a tool that returns an image, then a reply paused on a tool call that asks for approval, with
// the timeline open. Run: npm run screenshot (needs /usr/bin/chromium).
import { fileURLToPath } from 'node:url'
import { chromiumAvailable, launchBrowser } from '../spec/web/helpers/browser.js'
import { newSession, send, waitReady } from '../spec/web/helpers/page.js'
import { serve } from '../spec/web/helpers/server.js'

const OUT = fileURLToPath(new URL('../docs/screenshot.png', import.meta.url))

if (chromiumAvailable('screenshot')) {
  const server = await serve()
  const browser = await launchBrowser()
  try {
    const page = await browser.page()
    await newSession(page, server.url)
    for (const text of ['hello', 'image']) {
      await send(page, text)
      await waitReady(page)
    }
    await page.locator('article.msg-assistant img').last().waitFor()
    await send(page, 'approve')
    await page.getByRole('button', { name: 'Approve' }).waitFor()
    await page.getByRole('button', { name: 'Timeline' }).click()
    await page.locator('#timeline').getByText('REQUIRE_USER_CONFIRM').waitFor()
    // the latest rows of the timeline and the end of the conversation, as a person following it sees them
    await page.evaluate(() => {
      for (const el of document.querySelectorAll('#timeline, #timeline *, main.chat, main.chat *'))
        if (el.scrollHeight > el.clientHeight) el.scrollTop = el.scrollHeight
    })
    await page.mouse.move(0, 0)
    await page.screenshot({ path: OUT })
    console.log(`wrote ${OUT}`)
  } finally {
    await browser.close()
    await server.close()
  }
}
