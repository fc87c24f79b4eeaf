// ⑧ Webhook delivery (ntopng's endpoints/webhook.lua): one POST of
// {version: "0.2", sharedsecret, alerts: [notification, …]} as JSON, basic
// auth when a user name is set; any 2xx answer is a success.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

import type { Params } from '../endpoints.js';

/** webhook.lua API_VERSION and MAX_ALERTS_PER_REQUEST */
export const WEBHOOK_API_VERSION = '0.2';
export const WEBHOOK_BATCH = 10;

export function webhookBody(params: Params, alerts: unknown[]): string {
  const msg: Record<string, unknown> = { version: WEBHOOK_API_VERSION };
  // dkjson leaves out a nil sharedsecret
  if (params.webhook_sharedsecret) msg.sharedsecret = params.webhook_sharedsecret;
  msg.alerts = alerts;
  return JSON.stringify(msg);
}

/** One POST; rejects on a connection error, a timeout or an answer other than 2xx. */
export function postWebhook(params: Params, alerts: unknown[], timeoutMs: number): Promise<void> {
  const url = new URL(params.webhook_url);
  const body = Buffer.from(webhookBody(params, alerts));
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': body.length, 'user-agent': 'flowgate' };
  if (params.webhook_username) headers.authorization = `Basic ${Buffer.from(`${params.webhook_username}:${params.webhook_password ?? ''}`).toString('base64')}`;
  const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'POST', headers, agent: false, timeout: timeoutMs });
  return new Promise<void>((resolve, reject) => {
    // the whole exchange is bounded, not only the idle time
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        const s = res.statusCode ?? 0;
        if (s >= 200 && s < 300) resolve();
        else reject(new Error(`the webhook answered HTTP ${s}`));
      });
      res.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    req.end(body);
  });
}
