// A flow's category as nDPI gives it (ndpi_get_proto_category): the
// application's, except under mail and DNS masters, whose own category
// stands whatever the application (DNS.Google is Network, not Web).
import { describe, expect, it } from 'vitest';

import { DNS_TYPE, dns, dnsName, httpGet } from './fixtures/apps.js';
import { flowRunner } from './fixtures/dissect.js';

const run = flowRunner('fg-dpi-category-');
const NETWORK = 14, WEB = 5; // native/src/dpi/data/categories.tsv (nDPI's ids)

describe('flow category', () => {
  it('DNS.Google is Network (the master’s), HTTP.Google is Web (the application’s)', async () => {
    const q = dns({ flags: 0x0100, questions: [{ name: dnsName('www.google.com'), type: DNS_TYPE.A }] });
    const d = (await run('udp', 40600, 53, [q], [true])).flow;
    expect([d.l7_master, d.l7_app, d.l7_category]).toEqual([5, 126, NETWORK]);
    const h = (await run('tcp', 40601, 80, [httpGet('www.google.com')], [true])).flow;
    expect([h.l7_master, h.l7_app, h.l7_category]).toEqual([7, 126, WEB]);
  });
});
