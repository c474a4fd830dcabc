// The Temporal Web UI on its own, for the cluster started by launcher/cluster: the same UI server
// the Temporal CLI v1.5.1 embeds in its dev server (github.com/temporalio/ui-server/v2 v2.42.1),
// pointed at a frontend of our choosing.
package main

import (
	"flag"
	"log"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uiserveroptions "github.com/temporalio/ui-server/v2/server/server_options"
)

func main() {
	ip := flag.String("ip", "127.0.0.1", "address the UI listens on")
	port := flag.Int("port", 8233, "port the UI listens on")
	address := flag.String("temporal-address", "127.0.0.1:7233", "the Temporal frontend (host:port)")
	codec := flag.String("codec-endpoint", "", "a codec server the UI decodes payloads through (empty: none)")
	flag.Parse()

	server := uiserver.NewServer(uiserveroptions.WithConfigProvider(&uiconfig.Config{
		Host:                *ip,
		Port:                *port,
		TemporalGRPCAddress: *address,
		EnableUI:            true,
		CORS:                uiconfig.CORS{CookieInsecure: true},
		HideLogs:            true,
		Codec:               uiconfig.Codec{Endpoint: *codec},
	}))
	log.Printf("temporal-ui: http://%s:%d (frontend %s)", *ip, *port, *address)
	if err := server.Start(); err != nil {
		log.Fatal(err)
	}
}
