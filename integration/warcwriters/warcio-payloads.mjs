// warcio-payloads.mjs reads a WARC file with warcio.js (Webrecorder's
// WARC library: WARCParser) and prints one JSON line per record, in file
// order: its type, target URI (as warcio.js gives it: without angle
// brackets), WARC-Date, WARC-Record-ID, Content-Type, Content-Length,
// the payload and block digests and the WARC-Refers-To fields its header
// names, the HTTP status and Content-Type, and the payload as warcio.js
// reads it (the block after the HTTP header of a response, request or
// revisit; the whole block of any other record; no transfer or content
// coding undone): its length and SHA-256 in hex. gofer's integration tests compare what gofer's reading
// commands say of each record with it. Usage:
//
//   node warcio-payloads.mjs NODE_MODULES FILE
import { createRequire } from "node:module";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { join } from "node:path";

const [modules, file] = process.argv.slice(2);
if (!modules || !file) {
  console.error("usage: node warcio-payloads.mjs NODE_MODULES FILE");
  process.exit(2);
}
const require = createRequire(join(modules, "warcio-payloads.cjs"));
const { WARCParser } = require("warcio");

const parser = new WARCParser(createReadStream(file));
for await (const rec of parser) {
  const payload = await rec.readFully(false);
  const h = rec.warcHeaders.headers;
  const line = {
    type: rec.warcType || "",
    uri: rec.warcTargetURI || "",
    date: rec.warcDate || "",
    id: h.get("WARC-Record-ID") || "",
    payloadDigest: rec.warcPayloadDigest || "",
    blockDigest: rec.warcBlockDigest || "",
    warcContentType: rec.warcContentType || "",
    contentLength: h.get("Content-Length") || "",
    refersTo: h.get("WARC-Refers-To") || "",
    refersToURI: rec.warcRefersToTargetURI || "",
    refersToDate: rec.warcRefersToDate || "",
    length: payload.length,
    sha256: createHash("sha256").update(payload).digest("hex"),
  };
  if (rec.httpHeaders) {
    line.status = String(rec.httpHeaders.statusCode || "");
    line.contentType = rec.httpHeaders.headers.get("Content-Type") || "";
  }
  process.stdout.write(JSON.stringify(line) + "\n");
}
