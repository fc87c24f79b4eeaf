#!/usr/bin/env node
// Command line front-end of the synthetic capture generator.
//   node dist/bench/gen/cli.js --out <file> [--flows N] [--packets N] [--hosts N]
//        [--vlan-share F] [--ipv6-share F] [--seed N] [--flows-out file.jsonl]
//        [--duration S] [--start-time EPOCH] [--size-min N] [--size-max N] [--mix tls=0.4,dns=0.2,...]

import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { APPS, type AppName, type GenOptions, generate } from './generate.js';

const USAGE =
  'usage: cli.js --out <file.pcap> [--flows N] [--packets N] [--hosts N] [--vlan-share F] [--ipv6-share F]\n' +
  '              [--seed N] [--flows-out file.jsonl] [--duration S] [--start-time EPOCH]\n' +
  '              [--size-min N] [--size-max N] [--mix app=w,...]   (apps: ' + APPS.join(' ') + ')';

function fail(msg: string): never {
  process.stderr.write(`${msg}\n${USAGE}\n`);
  process.exit(2);
}

export function parseArgs(argv: string[]): GenOptions {
  const o: Partial<GenOptions> & { sizes?: { min: number; max: number } } = {};
  let sizeMin: number | undefined;
  let sizeMax: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    }
    let key = arg;
    let val: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      key = arg.slice(0, eq);
      val = arg.slice(eq + 1);
    } else {
      val = argv[++i];
    }
    if (val === undefined) fail(`missing value for ${key}`);
    const n = (): number => {
      const x = Number(val);
      if (!Number.isFinite(x)) fail(`${key}: not a number: ${val}`);
      return x;
    };
    switch (key) {
      case '--out': o.out = val; break;
      case '--flows': o.flows = n(); break;
      case '--packets': o.packets = n(); break;
      case '--hosts': o.hosts = n(); break;
      case '--vlan-share': o.vlanShare = n(); break;
      case '--ipv6-share': o.ipv6Share = n(); break;
      case '--seed': o.seed = n(); break;
      case '--flows-out': o.flowsOut = val; break;
      case '--duration': o.durationSec = n(); break;
      case '--start-time': o.startTime = n(); break;
      case '--size-min': sizeMin = n(); break;
      case '--size-max': sizeMax = n(); break;
      case '--mix': {
        const mix: Partial<Record<AppName, number>> = {};
        for (const part of val.split(',')) {
          const [a, w] = part.split('=');
          if (!APPS.includes(a as AppName) || w === undefined || !Number.isFinite(Number(w))) fail(`bad --mix entry: ${part}`);
          mix[a as AppName] = Number(w);
        }
        o.mix = mix;
        break;
      }
      default:
        fail(`unknown option ${key}`);
    }
  }
  if (!o.out) fail('--out is required');
  if (sizeMin !== undefined || sizeMax !== undefined) o.sizes = { min: sizeMin ?? 64, max: sizeMax ?? 1514 };
  return o as GenOptions;
}

export function main(argv: string[]): number {
  const opts = parseArgs(argv);
  try {
    const r = generate(opts);
    process.stdout.write(`generated: ${r.packets} packets, ${r.flows} flows, ${r.hosts} hosts, ${r.bytes} bytes -> ${r.file}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
