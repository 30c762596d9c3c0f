module github.com/goferurl/gofer/integration/warcwriters/gowarc

go 1.26

require github.com/CorentinB/warc v0.8.33

require (
	github.com/andybalholm/brotli v1.0.5 // indirect
	github.com/gaukas/godicttls v0.0.3 // indirect
	github.com/klauspost/compress v1.16.5 // indirect
	github.com/klauspost/pgzip v1.2.6 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/paulbellamy/ratecounter v0.2.0 // indirect
	github.com/refraction-networking/utls v1.3.2 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/satori/go.uuid v1.2.0 // indirect
	golang.org/x/crypto v0.9.0 // indirect
	golang.org/x/net v0.10.0 // indirect
	golang.org/x/sync v0.2.0 // indirect
	golang.org/x/sys v0.26.0 // indirect
)
