/**
 * The labelled corpus the PII redactor is measured on: sentences with the PII they hold marked
 * (kind and exact text), generated from varied formats with a seeded random source, plus
 * false-positive traps (order numbers, dates, versions, prices, ISBNs, hashes, UUIDs, times,
 * coordinates, card-length numbers that fail Luhn, IBAN-shaped strings that fail mod 97).
 *
 * `tuningCorpus()` is what the redactor was developed against; `heldOutCorpus()` (bottom) was
 * written before the redactor was first run on it and never tuned against.
 */

/** One labelled sentence. */
export interface LabelledText {
  text: string;
  pii: Array<{ kind: string; value: string }>;
}

/** mulberry32: a small seeded PRNG, so the corpus is the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const digits = (r: Rand, n: number): string => Array.from({ length: n }, () => String(Math.floor(r() * 10))).join('');
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const FIRST = ['ana', 'john.smith', 'li_wei', 'marie-claire', 'o.connor', 'dev+test', 'k.tanaka', 'sam99', 'fatima.z', 'noreply'];
const DOMAINS = ['example.com', 'mail.co.uk', 'acme-corp.io', 'uni-heidelberg.de', 'gmail.com', 'sub.domain.org', 'company.fr', 'proton.me'];

function email(r: Rand): string {
  const local = pick(r, FIRST);
  return `${r() < 0.2 ? local.toUpperCase() : local}@${pick(r, DOMAINS)}`;
}

function phone(r: Rand): string {
  const formats = [
    () => `+1 ${digits(r, 3)} ${int(r, 200, 999)} ${digits(r, 4)}`,
    () => `(${int(r, 200, 999)}) ${int(r, 200, 999)}-${digits(r, 4)}`,
    () => `${int(r, 200, 999)}-${int(r, 200, 999)}-${digits(r, 4)}`,
    () => `${int(r, 200, 999)}.${int(r, 200, 999)}.${digits(r, 4)}`,
    () => `+44 20 ${digits(r, 4)} ${digits(r, 4)}`,
    () => `020 ${digits(r, 4)} ${digits(r, 4)}`,
    () => `+49 30 ${digits(r, 7)}`,
    () => `+33 6 ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
    () => `06${digits(r, 8)}`,
    () => `+91 ${int(r, 70000, 99999)} ${digits(r, 5)}`,
    () => `+81-3-${digits(r, 4)}-${digits(r, 4)}`,
    () => `+1-${int(r, 200, 999)}-${int(r, 200, 999)}-${digits(r, 4)}`,
    () => `07${digits(r, 3)} ${digits(r, 6)}`,
    () => `+61 4${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
  ];
  return pick(r, formats)();
}

function luhnComplete(body: string): string {
  for (let d = 0; d < 10; d++) {
    const s = body + d;
    let sum = 0;
    for (let i = 0; i < s.length; i++) {
      let x = Number(s[s.length - 1 - i]);
      if (i % 2 === 1) {
        x *= 2;
        if (x > 9) x -= 9;
      }
      sum += x;
    }
    if (sum % 10 === 0) return s;
  }
  throw new Error('unreachable');
}

function card(r: Rand): string {
  const kind = int(r, 0, 3);
  if (kind === 0) {
    const n = luhnComplete(`4${digits(r, 14)}`);
    return pick(r, [n, n.replace(/(\d{4})(?=\d)/g, '$1 '), n.replace(/(\d{4})(?=\d)/g, '$1-')]);
  }
  if (kind === 1) {
    const n = luhnComplete(`5${int(r, 1, 5)}${digits(r, 13)}`);
    return pick(r, [n, n.replace(/(\d{4})(?=\d)/g, '$1 ')]);
  }
  if (kind === 2) {
    const n = luhnComplete(`3${pick(r, ['4', '7'])}${digits(r, 12)}`);
    return pick(r, [n, `${n.slice(0, 4)} ${n.slice(4, 10)} ${n.slice(10)}`]);
  }
  return luhnComplete(`6011${digits(r, 11)}`);
}

function ip(r: Rand): string {
  if (r() < 0.7) return `${int(r, 1, 223)}.${int(r, 0, 255)}.${int(r, 0, 255)}.${int(r, 1, 254)}`;
  const h = (): string => int(r, 0x1000, 0xffff).toString(16);
  return pick(r, [`2001:db8:${h()}:${h()}::${h()}`, `fe80::${h()}:${h()}:${h()}:${h()}`, `2001:0db8:${h()}:${h()}:${h()}:${h()}:${h()}:${h()}`]);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randStr = (r: Rand, n: number, alphabet = ALNUM): string => Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');

function secret(r: Rand): string {
  return pick(r, [
    () => `sk-proj-${randStr(r, 40)}`,
    () => `sk_live_${randStr(r, 24)}`,
    () => `ghp_${randStr(r, 36)}`,
    () => `AKIA${randStr(r, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`,
    () => `xoxb-${digits(r, 12)}-${randStr(r, 24)}`,
    () => `AIza${randStr(r, 35)}`,
    () => `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi${randStr(r, 20)}.${randStr(r, 30)}`,
    () => `fl_sk_${randStr(r, 43)}`,
    () => `glpat-${randStr(r, 20)}`,
    () => randStr(r, 32),
  ])();
}

function ibanOf(country: string, bban: string): string {
  const moved = `${bban}${country}00`;
  let rest = 0;
  for (const ch of moved) {
    const v = /[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  const check = String(98 - rest).padStart(2, '0');
  return `${country}${check}${bban}`;
}

function iban(r: Rand): string {
  const [country, len] = pick(r, [['DE', 18], ['FR', 23], ['GB', 18], ['NL', 14], ['ES', 20], ['IT', 23], ['CH', 17]] as const);
  const bban = country === 'GB' || country === 'NL' ? `${randStr(r, 4, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')}${digits(r, len - 4)}` : digits(r, len);
  const plain = ibanOf(country, bban);
  return r() < 0.5 ? plain : plain.replace(/(.{4})(?=.)/g, '$1 ');
}

const GENERATORS: Record<string, (r: Rand) => string> = { email, phone, card, ip, secret, iban };

const SENTENCES = [
  (v: string) => `Please contact me at ${v} about the refund.`,
  (v: string) => `my details: ${v}`,
  (v: string) => `The customer wrote "${v}" in the form, can you check?`,
  (v: string) => `${v} is what they gave us`,
  (v: string) => `Update the record (${v}) and close the ticket.`,
  (v: string) => `Why does the query fail for ${v}?`,
  (v: string) => `SELECT * FROM users WHERE contact = '${v}';`,
  (v: string) => `Hi, it's me again, use ${v}, thanks!`,
];

const KIND_CONTEXT: Record<string, (v: string) => string> = {
  phone: (v) => `You can call ${v} after 5pm.`,
  card: (v) => `Charge the card ${v} for the annual plan.`,
  ip: (v) => `Requests from ${v} keep timing out.`,
  secret: (v) => `The key I use is ${v} but it returns 401.`,
  iban: (v) => `Wire it to IBAN ${v} please.`,
  email: (v) => `Send the invoice to ${v}.`,
};

/** False-positive traps: text that holds no PII but looks like some. */
function trap(r: Rand): string {
  return pick(r, [
    () => `Order #${digits(r, 9)} was shipped on 2026-${String(int(r, 1, 12)).padStart(2, '0')}-${String(int(r, 1, 28)).padStart(2, '0')}.`,
    () => `Invoice INV-2026-${digits(r, 5)} totals $${int(r, 1, 9)},${digits(r, 3)}.${digits(r, 2)}.`,
    () => `Upgrade from v${int(r, 1, 9)}.${int(r, 0, 20)}.${int(r, 0, 30)} to version ${int(r, 1, 9)}.${int(r, 0, 9)}.${int(r, 0, 9)}.${int(r, 0, 99)}.`,
    () => `The meeting is on ${String(int(r, 1, 28)).padStart(2, '0')}.${String(int(r, 1, 12)).padStart(2, '0')}.2026 at ${int(r, 8, 18)}:${pick(r, ['00', '15', '30', '45'])}.`,
    () => `Revenue grew from 1,${digits(r, 3)},${digits(r, 3)} to 2,${digits(r, 3)},${digits(r, 3)} EUR in Q${int(r, 1, 4)}.`,
    () => `ISBN 978-${int(r, 0, 9)}-${digits(r, 3)}-${digits(r, 5)}-${int(r, 0, 9)} is out of print.`,
    () => `Commit ${randStr(r, 40, '0123456789abcdef')} broke the build.`,
    () => `Request id ${randStr(r, 8, '0123456789abcdef')}-${randStr(r, 4, '0123456789abcdef')}-4${randStr(r, 3, '0123456789abcdef')}-a${randStr(r, 3, '0123456789abcdef')}-${randStr(r, 12, '0123456789abcdef')} failed.`,
    () => `Tracking number ${digits(r, 12)} is stuck in Memphis.`,
    () => `The store is at ${int(r, 10, 80)}.${digits(r, 4)}, -${int(r, 10, 120)}.${digits(r, 4)}.`,
    () => `Account 16-digit reference ${(() => {
      // A number of card length that fails the Luhn check.
      const n = luhnComplete(`4${digits(r, 14)}`);
      const last = (Number(n[15]) + 1) % 10;
      return n.slice(0, 15) + last;
    })()} is not a card.`,
    () => `Years 2019-2023 were slower; 2024 2025 were better.`,
    () => `Room 1204, floor 12, building B; postcode 75011.`,
    () => `Sales were ${int(r, 100, 999)} ${digits(r, 3)} units across ${int(r, 2, 40)} stores.`,
    () => `Use the token_budget_exceeded_error_handler function in utils.`,
    () => `The model gpt-4o-mini-2024-07-18 scored ${int(r, 50, 99)}.${int(r, 0, 9)}%.`,
    () => `Listen on 0.0.0.0 port ${int(r, 1000, 9000)}; timeout 30.5 s.`,
    () => `Compare DE00 and FR00 regions in table sales_2026_q${int(r, 1, 4)}.`,
    () => `Ticket ${pick(r, ['JIRA', 'OPS', 'SUP'])}-${digits(r, 5)} duplicates ${pick(r, ['JIRA', 'OPS'])}-${digits(r, 4)}.`,
    () => `Price: €${int(r, 10, 999)}.${digits(r, 2)} (was €${int(r, 10, 999)}.${digits(r, 2)}), SKU ${digits(r, 8)}.`,
    () => `Timestamp 1732350000${digits(r, 3)} ms since epoch.`,
    () => `Build 2026.11.${int(r, 1, 28)}.${int(r, 1, 999)} is live.`,
    () => `PO number 4500${digits(r, 6)} approved; page ${int(r, 1, 300)} of the contract.`,
    () => `Temperature 21.5 C, humidity 48 %, pressure 1013 hPa.`,
    () => `The IBAN field must look like XX00 0000 0000 0000 but validation is off.`,
    () => `Call the function parse_phone_number(input) on each row.`,
    () => `Flight LH ${digits(r, 4)} departs 07:${int(r, 10, 59)} from gate B${int(r, 1, 60)}.`,
    () => `ENG-${digits(r, 3)}: set MAX_RETRIES=5 and BACKOFF_MS=250.`,
  ])();
}

/**
 * The tuning corpus: `n` sentences with PII (one or two values each) and `traps` without.
 *
 * @example
 * const items = tuningCorpus(); // about 600 labelled sentences
 */
export function tuningCorpus(n = 420, traps = 320, seed = 11): LabelledText[] {
  const r = rng(seed);
  const kinds = Object.keys(GENERATORS);
  const out: LabelledText[] = [];
  for (let i = 0; i < n; i++) {
    const kind = kinds[i % kinds.length] as string;
    const value = (GENERATORS[kind] as (r: Rand) => string)(r);
    const template = r() < 0.5 ? (KIND_CONTEXT[kind] as (v: string) => string) : pick(r, SENTENCES);
    if (r() < 0.25) {
      const kind2 = pick(r, kinds);
      const value2 = (GENERATORS[kind2] as (r: Rand) => string)(r);
      out.push({ text: `${template(value)} Also ${value2}.`, pii: [{ kind, value }, { kind: kind2, value: value2 }] });
    } else {
      out.push({ text: template(value), pii: [{ kind, value }] });
    }
  }
  for (let i = 0; i < traps; i++) out.push({ text: trap(r), pii: [] });
  return out;
}

/**
 * Written by hand before the redactor ran on it, and not tuned against: realistic user texts,
 * formats the generator does not make, and traps of its own.
 */
export function heldOutCorpus(): LabelledText[] {
  const L = (text: string, ...pii: Array<[string, string]>): LabelledText => ({ text, pii: pii.map(([kind, value]) => ({ kind, value })) });
  return [
    L('hey can u email me the report at priya.k@northwind-traders.com thx', ['email', 'priya.k@northwind-traders.com']),
    L('My number changed, its now +353 87 123 4567', ['phone', '+353 87 123 4567']),
    L('ring me on 0161 496 0000 tomorrow', ['phone', '0161 496 0000']),
    L('Tel: (02) 9876 5432 (Sydney office)', ['phone', '(02) 9876 5432']),
    L('card is 4111 1111 1111 1111 exp 12/28', ['card', '4111 1111 1111 1111']),
    L('use 5555555555554444 for the test charge', ['card', '5555555555554444']),
    L('amex 378282246310005 was declined', ['card', '378282246310005']),
    L('server 10.0.12.7 cannot reach the db', ['ip', '10.0.12.7']),
    L('blocked ip 203.0.113.195 after 5 attempts', ['ip', '203.0.113.195']),
    L('ipv6 host 2001:db8:85a3::8a2e:370:7334 is down', ['ip', '2001:db8:85a3::8a2e:370:7334']),
    L('OPENAI_API_KEY=sk-abcdEFGH1234ijklMNOP5678qrstUVWX set in .env', ['secret', 'sk-abcdEFGH1234ijklMNOP5678qrstUVWX']),
    L('Authorization: Bearer 9f8e7d6c5b4aQwErTy1234567890ZxCvBn', ['secret', '9f8e7d6c5b4aQwErTy1234567890ZxCvBn']),
    L('password: Hunter2!Secret and user admin', ['secret', 'Hunter2!Secret']),
    L('token ghp_16C7e42F292c6912E7710c838347Ae178B4a works locally', ['secret', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a']),
    L('pay to GB82 WEST 1234 5698 7654 32 by friday', ['iban', 'GB82 WEST 1234 5698 7654 32']),
    L('IBAN DE89370400440532013000, BIC COBADEFFXXX', ['iban', 'DE89370400440532013000']),
    L('Mail john@doe.io and jane@doe.io about 555-867-5309', ['email', 'john@doe.io'], ['email', 'jane@doe.io'], ['phone', '555-867-5309']),
    L('contact: support@feedloop.dev / +1 (800) 555-0199', ['email', 'support@feedloop.dev'], ['phone', '+1 (800) 555-0199']),
    L('The sum of order 1234 and order 5678 is wrong'),
    L('Set the date to 2025-12-31 and the version to 3.11.4'),
    L('Q3 revenue: $4,567,890.12 vs $3,210,987.65'),
    L('The pipeline ran 1,000,000 rows in 12.5 seconds'),
    L('Release 10.4.2.1 fixes CVE-2024-3094'),
    L('Docker image sha256:9b2a3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b'),
    L('Customer id 88213 ordered 3 items on 11/23/2026'),
    L('Use the SQL: WHERE created_at BETWEEN 2026-01-01 AND 2026-03-31'),
    L('GPS 48.8566, 2.3522 is Paris'),
    L('invoice no. 2026004512 is overdue by 14 days'),
    L('The call lasted 00:12:45 and cost 0.35 EUR'),
    L('ids 550e8400-e29b-41d4-a716-446655440000 and 6ba7b810-9dad-11d1-80b4-00c04fd430c8'),
    L('I was born 1990-04-12, not 1990 04 21'),
    L('our sales team (12 people) closed 345 678 deals'),
    L('Error code 0x80070005 when saving'),
    L('Model claude-3-5-sonnet-20241022 answered in 842 ms'),
    L('The table has columns phone, email and ip_address'),
    L('Route 66, exit 123, mile marker 4567'),
  ];
}
