package dev.deltacheck.driver;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * A loopback HTTP server that answers every request with the current fixture's body, so a library's
 * own HTTP client and stream parser consume the bytes: the SSE text as a `text/event-stream` body, or,
 * for a protocol whose body is binary (`body_base64`: Bedrock's event-stream messages), those bytes as
 * `application/vnd.amazon.eventstream`. The body is written in slices flushed one by one (chunked
 * transfer): where a byte-level fixture cuts it (`sse_cuts`, which may fall inside a multi-byte
 * character or a binary message), else in `PIECES` slices of equal size, so the slices may cut lines,
 * events, messages and multi-byte characters, as a network does.
 */
public final class Replay implements AutoCloseable {
    public static final String API_KEY = "sk-deltacheck-dummy";
    private static final int PIECES = 4;
    private static final String SSE_TYPE = "text/event-stream; charset=utf-8";
    private static final String EVENT_STREAM_TYPE = "application/vnd.amazon.eventstream";

    private final HttpServer server;
    private volatile byte[] body = new byte[0];
    private volatile int[] edges = {0, 0};  // slice boundaries of body, from 0 to its length
    private volatile String contentType = SSE_TYPE;
    private long servings;  // bodies set by serve(), so a late writer of an earlier body is not counted
    private volatile long bodyWrittenAt = -1;  // System.nanoTime() when the current body was last written whole
    private volatile String lastRequest = "";

    private Replay(HttpServer server) {
        this.server = server;
    }

    public static Replay start() throws IOException {
        // Each slice is flushed on its own; without TCP_NODELAY every slice after the first waits for
        // the client's delayed ACK (about 40 ms per fixture).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        Replay replay = new Replay(server);
        server.createContext("/", exchange -> {
            try (InputStream request = exchange.getRequestBody()) {
                request.readAllBytes();
            }
            replay.lastRequest = exchange.getRequestMethod() + " " + exchange.getRequestURI();
            byte[] bytes;
            int[] slices;
            String type;
            long serving;
            synchronized (replay) {
                bytes = replay.body;
                slices = replay.edges;
                type = replay.contentType;
                serving = replay.servings;
            }
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (int i = 1; i < slices.length; i++) {
                    out.write(bytes, slices[i - 1], slices[i] - slices[i - 1]);
                    out.flush();
                }
            }
            replay.written(serving);
        });
        server.setExecutor(Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "deltacheck-replay");
            thread.setDaemon(true);
            return thread;
        }));
        server.start();
        return replay;
    }

    /**
     * The next requests are answered with this run request's body, cut where the fixture cuts it: its SSE
     * text, or the bytes of its `body_base64` (a binary protocol's body) as an event stream.
     */
    public void serve(Map<String, Object> request) {
        Object cuts = request.get("sse_cuts");
        List<?> at = cuts instanceof List ? (List<?>) cuts : List.of();
        Object binary = request.get("body_base64");
        if (binary instanceof String) {
            serve(Base64.getDecoder().decode((String) binary), EVENT_STREAM_TYPE, at);
        } else {
            serve((String) request.get("sse"), at);
        }
    }

    /** The next requests are answered with this SSE text, cut at these byte offsets (none: equal slices). */
    public void serve(String sse, List<?> cuts) {
        serve(sse.getBytes(StandardCharsets.UTF_8), SSE_TYPE, cuts);
    }

    /** The next requests are answered with these bytes of this content type, cut at these offsets (none: equal slices). */
    public synchronized void serve(byte[] bytes, String type, List<?> cuts) {
        List<Integer> at = new ArrayList<>(List.of(0));
        if (!cuts.isEmpty()) {
            for (Object cut : cuts) at.add(((Number) cut).intValue());
        } else {
            int size = Math.max(1, (bytes.length + PIECES - 1) / PIECES);
            for (int offset = size; offset < bytes.length; offset += size) at.add(offset);
        }
        at.add(bytes.length);
        body = bytes;
        edges = at.stream().mapToInt(Integer::intValue).toArray();
        contentType = type;
        servings++;
        bodyWrittenAt = -1;
    }

    private synchronized void written(long serving) {
        if (serving == servings) bodyWrittenAt = System.nanoTime();
    }

    /**
     * Milliseconds since the body serve() set last was written whole to a client, -1 while it has not been:
     * a driver waiting for a library that never reports the end of a stream gives up a while after this.
     */
    public long millisSinceBodyWritten() {
        long at = bodyWrittenAt;
        return at < 0 ? -1 : (System.nanoTime() - at) / 1_000_000;
    }

    /** http://127.0.0.1:PORT, without a trailing slash. */
    public String baseUrl() {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort();
    }

    /** What the library asked for last (method and path), for diagnostics. */
    public String lastRequest() {
        return lastRequest;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
