// @ts-check
import { defineConfig } from 'vitepress';

/** The site's pages, in reading order: the sidebar and the test that opens every page read this. */
export const sidebar = [
  {
    text: 'Get started',
    items: [{ text: 'Install and Quickstart', link: '/guide/getting-started' }],
  },
  {
    text: 'Concepts',
    items: [
      { text: 'Runs and resume', link: '/concepts/runs' },
      { text: 'Determinism and versioning', link: '/concepts/determinism' },
      { text: 'Idempotency and unknown outcomes', link: '/concepts/idempotency' },
      { text: 'Leases and fencing', link: '/concepts/leases' },
      { text: 'The at-least-once window', link: '/concepts/at-least-once' },
      { text: 'Group commit', link: '/concepts/group-commit' },
    ],
  },
  {
    text: 'Guides',
    items: [
      { text: 'Retries', link: '/guides/retries' },
      { text: 'Waits and signals', link: '/guides/waits-and-signals' },
      { text: 'The AI SDK', link: '/guides/ai-sdk' },
      { text: 'The OpenAI Agents SDK', link: '/guides/openai-agents' },
      { text: 'Streams', link: '/guides/streams' },
      { text: 'Conversations as runs', link: '/guides/conversations' },
      { text: 'Replaying runs', link: '/guides/replay' },
      { text: 'Schedules, deadlines and fan-out', link: '/guides/schedules' },
      { text: 'Queues and limiters', link: '/guides/queues' },
      { text: 'Many workers', link: '/guides/workers' },
      { text: 'Replicated databases', link: '/guides/replicated-databases' },
      { text: 'Connection poolers', link: '/guides/connection-poolers' },
      { text: 'NestJS', link: '/guides/nestjs' },
      { text: 'The web console', link: '/guides/console' },
      { text: 'The MCP server', link: '/guides/mcp-server' },
      { text: 'Testing your agents', link: '/guides/testing' },
      { text: 'The CLI', link: '/guides/cli' },
    ],
  },
  {
    text: 'Operate',
    items: [
      { text: 'Migrations', link: '/operate/migrations' },
      { text: 'Pruning and retention', link: '/operate/pruning' },
      { text: 'Upgrades', link: '/operate/upgrades' },
      { text: 'Observability', link: '/operate/observability' },
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'Errors', link: '/reference/errors' },
      { text: 'Runtime options', link: '/reference/runtime-options' },
      { text: 'Identifiers and limits', link: '/reference/identifiers' },
      { text: 'Storage schema', link: '/reference/storage' },
      { text: 'Database URLs', link: '/reference/database-urls' },
      { text: 'API', link: '/reference/api' },
    ],
  },
  {
    text: 'Contributing',
    items: [
      { text: 'Running the tests', link: '/contributing/' },
      { text: 'Benchmarks', link: '/contributing/benchmarks' },
      { text: 'Layout', link: '/contributing/layout' },
      { text: 'Decisions', link: '/contributing/decisions' },
      { text: 'Dependencies', link: '/contributing/dependencies' },
    ],
  },
];

export default defineConfig({
  title: 'waymark',
  description: 'Durable execution for TypeScript AI agents and service classes.',
  cleanUrls: true,
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  lastUpdated: false,
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Reference', link: '/reference/errors' },
      { text: 'GitHub', link: 'https://github.com/waymark-dev/waymark' },
    ],
    sidebar,
    outline: [2, 3],
    search: { provider: 'local' },
    socialLinks: [{ icon: 'github', link: 'https://github.com/waymark-dev/waymark' }],
  },
});
