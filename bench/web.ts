// Benchmark of the web page in headless Chromium against the real server (prints figures, asserts
// nothing about time): open a session of about 10,000 events and time the first render of the
// whole conversation; then stream a 2,000-delta reply into it and record the page's long tasks,
// the frames drawn and whether any earlier message was touched (no full re-render per delta).
// Run: npm run bench:web [EVENTS]
import { createAgent, UserMsg } from '../lib/index.js'
import { launchBrowser } from '../spec/web/helpers/browser.js'
import { playbookAgent } from '../spec/web/helpers/playbook.js'
import { serve } from '../spec/web/helpers/server.js'

const EVENTS = Number(process.argv[2] ?? 10_000)
const DELTAS = 2_000

const server = await serve()
const browser = await launchBrowser()
try {
  const { session_id } = await server.store.create()
  const agent = createAgent({ ...playbookAgent(), log: await server.store.open(session_id), session_id })
  while (agent.log.length < EVENTS) await agent.reply(UserMsg({ content: 'stream 95' }))
  const events = agent.log.length
  const messages = agent.state.context.length
  await agent.close()

  const page = await browser.page()
  // Browser-side code as strings: tsx names inner functions with a helper the page does not have.
  await page.addInitScript({ content: `
    window.__longTasks = []
    new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__longTasks.push(e.duration))).observe({ type: 'longtask', buffered: true })` })
  const opened = Date.now()
  await page.goto(`${server.url}/#/sessions/${encodeURIComponent(session_id)}`)
  await page.waitForFunction((n) => document.querySelectorAll('article.msg').length === n, messages, { timeout: 60_000, polling: 'raf' })
  const firstRender = Date.now() - opened
  const loadTasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.splice(0))

  await page.evaluate(`
    window.__touched = new Set()
    window.__frames = 0
    const earlier = [...document.querySelectorAll('article.msg')]
    new MutationObserver((records) => records.forEach((r) => {
      const article = (r.target instanceof Element ? r.target : r.target.parentElement)?.closest('article.msg')
      if (article && earlier.includes(article)) window.__touched.add(article)
    })).observe(document.querySelector('.conversation'), { subtree: true, childList: true, characterData: true, attributes: true })
    const count = () => { window.__frames++; requestAnimationFrame(count) }
    requestAnimationFrame(count)`)
  const started = Date.now()
  await page.getByLabel('Message').fill(`stream ${DELTAS}`)
  await page.getByLabel('Message').press('Enter')
  await page.waitForFunction((n) => {
    const all = document.querySelectorAll('article.msg-assistant')
    return all[all.length - 1]?.querySelector(':scope > .text')?.textContent?.length === n && document.querySelector('.status-line')?.textContent === 'Ready.'
  }, DELTAS, { timeout: 60_000 })
  const streamMs = Date.now() - started
  const stream = await page.evaluate(() => {
    const w = window as unknown as { __longTasks: number[]; __touched: Set<Element>; __frames: number }
    return { longTasks: w.__longTasks, touched: w.__touched.size, frames: w.__frames }
  })
  const sum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0))
  console.log(`web page, headless Chromium, ${events} events / ${messages} messages in the opened session`)
  console.log(`  first render of the whole conversation: ${firstRender} ms (long tasks: ${loadTasks.length}, ${sum(loadTasks)} ms in all, longest ${Math.round(Math.max(0, ...loadTasks))} ms)`)
  console.log(`  stream of ${DELTAS} deltas: ${streamMs} ms to the last one on screen, ${stream.frames} frames drawn`)
  console.log(`  long tasks while streaming: ${stream.longTasks.length}, ${sum(stream.longTasks)} ms in all, longest ${Math.round(Math.max(0, ...stream.longTasks))} ms`)
  console.log(`  earlier messages whose DOM changed while streaming: ${stream.touched} of ${messages}`)
} finally {
  await browser.close()
  await server.close()
}
