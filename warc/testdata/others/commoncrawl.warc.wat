WARC/1.0
WARC-Type: warcinfo
WARC-Date: 2026-01-10T00:00:00Z
WARC-Filename: commoncrawl.warc.wat
WARC-Record-ID: <urn:uuid:c0c0c0c0-0000-4000-8000-0000000000a1>
Content-Type: application/warc-fields
Content-Length: 301

Software-Info: ia-web-commons.1.1.10-SNAPSHOT-20260110
ExtractedDate: Sat, 10 Jan 2026 00:00:00 GMT
robots: checked via crawler-commons 1.5
isPartOf: CC-MAIN-2026-05
operator: Common Crawl Admin (info@commoncrawl.org)
description: Wide crawl of the web for January 2026
publisher: Common Crawl


WARC/1.0
WARC-Type: metadata
WARC-Target-URI: https://example.edu/
WARC-Date: 2026-01-02T03:04:06Z
WARC-Record-ID: <urn:uuid:c0c0c0c0-0000-4000-8000-0000000000a2>
WARC-Refers-To: <urn:uuid:c0c0c0c0-0000-4000-8000-000000000003>
Content-Type: application/json
Content-Length: 562

{"Container":{"Filename":"commoncrawl.warc","Compressed":false,"Offset":"1014","Gzip-Metadata":{}},"Envelope":{"Format":"WARC","WARC-Header-Length":"520","Block-Digest":"sha1:TSNXKMVYOIUPK5TJSI5K2S52UMKXIPBN","Actual-Content-Length":"236","WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"https://example.edu/"},"Payload-Metadata":{"Actual-Content-Type":"application/http; msgtype=response","HTTP-Response-Metadata":{"Response-Message":{"Status":"200","Version":"HTTP/1.1","Reason":"OK"},"HTML-Metadata":{"Head":{"Title":"Common"},"Links":[]}}}}}

