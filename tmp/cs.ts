import { CronSchedule } from '../src/policies/CronSchedule';
const s = CronSchedule.parse('*/5 * * * *', 'Europe/Paris');
const t0 = Date.parse('2026-01-01T00:00:00Z');
console.log(new Date(s.nextAfter(t0)).toISOString());
console.log(s.ticksBetween(t0, t0 + 16*60000, 10).map(t=>new Date(t).toISOString()));
console.log(s.dueTicks(t0, t0 + 16*60000, 'latest').map(t=>new Date(t).toISOString()));
console.log(s.dueTicks(t0, t0 + 16*60000, 'skip'), s.dueTicks(t0, t0 + 30000, 'skip').map(t=>new Date(t).toISOString()));
for (const [c,z] of [['bad','UTC'],['* * * * *','Mars/Olympus'],['61 * * * *','UTC']]) { try { CronSchedule.parse(c,z); console.log('ok?',c) } catch(e){ console.log((e as Error).message)} }
