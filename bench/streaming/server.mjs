// The stream server, in a process of its own so its CPU is not the client's: POST /text or
// /tool answers 200 text/event-stream with the whole recorded stream in one write (a burst).
// Prints its port on stdout once listening; exits when stdin closes.
import http from "node:http";
import { chatStream } from "./fixture.mjs";

const streams = { "/text": chatStream("text").bytes, "/tool": chatStream("tool").bytes };
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const path = req.url.replace(/^\/v1/, "").replace(/\/chat\/completions$/, "");
    const body = streams[path];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "content-length": body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
