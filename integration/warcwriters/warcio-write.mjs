// warcio-write.mjs writes a WARC file with warcio.js (Webrecorder's WARC
// library: WARCRecord.create and WARCSerializer), for gofer's integration
// tests to read back. Usage:
//
//   node warcio-write.mjs NODE_MODULES SPEC.json
//
// NODE_MODULES is the directory warcio.js is installed in; SPEC.json says
// what to write:
//
//   {"out": "FILE", "gzip": true, "version": "WARC/1.1",
//    "digest": "sha256" | "sha1-base32" | "none",
//    "records": [{"type": "response" | "resource" | "revisit" | "metadata",
//                 "url": "...", "date": "RFC 3339", "file": "PATH" | "body": "TEXT",
//                 "contentType": "text/plain", "refersTo": INDEX,
//                 "statusline": "HTTP/1.1 200 OK", "httpHeaders": {...}}]}
//
// A response's HTTP header is a 200 with the Content-Type and the length
// of the file's bytes (or the body's), unless statusline and httpHeaders
// say otherwise; a resource's block is those bytes. A revisit
// refers to the record at INDEX in records (its URI, date and payload
// digest). warcio.js writes a warcinfo record first, each record gzipped
// as a member of its own when gzip is true. It always adds
// WARC-Payload-Digest and WARC-Block-Digest; with "digest": "none" the
// payload digest line is taken out of each header after serialising (the
// block digest stays, still true of the block).
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const [modules, specPath] = process.argv.slice(2);
if (!modules || !specPath) {
  console.error("usage: node warcio-write.mjs NODE_MODULES SPEC.json");
  process.exit(2);
}
const require = createRequire(join(modules, "warcio-write.cjs"));
const { WARCRecord, WARCSerializer } = require("warcio");
const spec = JSON.parse(readFileSync(specPath, "utf8"));
const warcVersion = spec.version || "WARC/1.1";
const digest = {
  sha256: { algo: "sha-256", prefix: "sha256:", base32: false },
  "sha1-base32": { algo: "sha-1", prefix: "sha1:", base32: true },
  none: { algo: "sha-256", prefix: "sha256:", base32: false },
}[spec.digest || "sha256"];
if (!digest) {
  console.error(`warcio-write: digest ${spec.digest}: want sha256, sha1-base32 or none`);
  process.exit(2);
}

const dec = new TextDecoder("latin1");

async function* chunks(bytes) {
  yield bytes;
}

// serialise writes rec uncompressed, drops its payload digest if the spec
// says none, then gzips it as a member of its own if the spec says gzip.
async function serialise(rec) {
  let raw = await WARCSerializer.serialize(rec, { gzip: false, digest });
  if (spec.digest === "none") {
    const text = dec.decode(raw);
    const end = text.indexOf("\r\n\r\n");
    const head = text.slice(0, end).split("\r\n").filter((l) => !/^WARC-Payload-Digest:/i.test(l)).join("\r\n");
    raw = Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(raw.subarray(end))]);
  }
  return spec.gzip ? gzipSync(raw) : Buffer.from(raw);
}

const out = [];
const info = WARCRecord.createWARCInfo(
  { filename: spec.out.split("/").pop(), warcVersion, date: "2026-01-02T03:04:05Z" },
  { software: "warcio.js", format: `WARC File Format ${warcVersion.slice(5)}` },
);
out.push(await serialise(info));
const written = [];
for (const r of spec.records) {
  const body = r.file ? readFileSync(r.file) : Buffer.from(r.body || "", "utf8");
  const opts = { url: r.url, date: r.date, type: r.type, warcVersion, warcHeaders: {} };
  if (r.type === "response") {
    opts.httpHeaders = r.httpHeaders || { "Content-Type": r.contentType || "text/plain", "Content-Length": String(body.length) };
    opts.statusline = r.statusline || "HTTP/1.1 200 OK";
  } else if (r.contentType) {
    opts.warcHeaders["Content-Type"] = r.contentType;
  }
  if (r.type === "revisit") {
    const ref = written[r.refersTo];
    opts.refersToUrl = ref.url;
    opts.refersToDate = ref.date;
    opts.warcHeaders["WARC-Refers-To"] = ref.id;
    opts.httpHeaders = { "Content-Type": ref.contentType || "text/plain" };
    opts.statusline = "HTTP/1.1 200 OK";
  }
  const rec = WARCRecord.create(opts, chunks(r.type === "revisit" ? new Uint8Array(0) : new Uint8Array(body)));
  if (r.type === "revisit" && refDigest(written[r.refersTo])) {
    rec.warcHeaders.headers.set("WARC-Payload-Digest", written[r.refersTo].payloadDigest);
  }
  out.push(await serialise(rec));
  written.push({
    url: r.url,
    date: rec.warcDate,
    id: rec.warcHeaders.headers.get("WARC-Record-ID"),
    contentType: r.contentType,
    payloadDigest: rec.warcPayloadDigest,
  });
}
writeFileSync(spec.out, Buffer.concat(out));

function refDigest(w) {
  return spec.digest !== "none" && w && w.payloadDigest;
}
