package dev.keel.bench.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;

/**
 * Minimal Netty 4.2 NIO HTTP/1.1 server, the reference point for Keel's throughput runs.
 * Responses are written without flushing while a read batch is processed and flushed once in
 * channelReadComplete, so a burst of pipelined requests is answered with a single write.
 * With {@code --tls-cert} (a PEM certificate chain) and {@code --tls-key} (a PEM PKCS#8 key) it
 * serves HTTPS instead, through the JDK's own TLS engine (TLSv1.3 and TLSv1.2), for bench/tls.sh.
 * With {@code --epoll} it runs on Linux's native epoll transport instead of NIO (bench/throughput.sh,
 * bench/overload.sh).
 */
public final class NettyHello {
    private static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain");
    private static final AsciiString APPLICATION_JSON = AsciiString.cached("application/json");
    private static final ByteBuf HELLO = Unpooled.unreleasableBuffer(
            Unpooled.directBuffer().writeBytes("Hello, World!".getBytes(StandardCharsets.US_ASCII)));

    /** RFC 1123 date, replaced once per second by a task on the event loop group. */
    private static volatile AsciiString date = formatNow();

    private NettyHello() {}

    private static AsciiString formatNow() {
        return new AsciiString(DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)));
    }

    public static void main(String[] args) throws Exception {
        int port = 8081;
        int threads = Runtime.getRuntime().availableProcessors();
        String tlsCert = null;
        String tlsKey = null;
        boolean epoll = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--tls-cert" -> tlsCert = args[++i];
                case "--tls-key" -> tlsKey = args[++i];
                case "--epoll" -> epoll = true;
                default -> usage();
            }
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            usage();
        }
        SslContext ssl = tlsCert == null ? null
                : SslContextBuilder.forServer(new File(tlsCert), new File(tlsKey))
                        .sslProvider(SslProvider.JDK)
                        .protocols("TLSv1.3", "TLSv1.2")
                        .build();
        if (epoll) {
            Epoll.ensureAvailability();
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        Class<? extends ServerChannel> serverChannel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        try {
            group.scheduleAtFixedRate(() -> date = formatNow(), 1, 1, TimeUnit.SECONDS);
            Channel server = new ServerBootstrap()
                    .group(group)
                    .channel(serverChannel)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (ssl != null) {
                                ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                            }
                            ch.pipeline().addLast(new HttpServerCodec(), new HelloHandler());
                        }
                    })
                    .bind(port).sync().channel();
            System.out.println("netty-hello listening on port " + port + (ssl == null ? "" : " (TLS, JDK provider)")
                    + (epoll ? " (epoll)" : " (nio)")
                    + " with " + threads + " event loop(s)");
            server.closeFuture().sync();
        } finally {
            group.shutdownGracefully();
        }
    }

    private static void usage() {
        System.err.println("usage: netty-hello [--port N] [--threads N] [--epoll] [--tls-cert CHAIN.pem --tls-key KEY.pem]");
        System.exit(2);
    }

    private static final class HelloHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof HttpRequest req)) {
                ReferenceCountUtil.release(msg); // body chunks / LastHttpContent: nothing to do
                return;
            }
            try {
                FullHttpResponse resp = respond(ctx, req);
                resp.headers()
                        .set(HttpHeaderNames.CONTENT_LENGTH, resp.content().readableBytes())
                        .set(HttpHeaderNames.DATE, date);
                if (HttpUtil.isKeepAlive(req)) {
                    if (req.protocolVersion() == HttpVersion.HTTP_1_0) {
                        resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                    }
                    ctx.write(resp, ctx.voidPromise());
                } else {
                    resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                    ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private static FullHttpResponse respond(ChannelHandlerContext ctx, HttpRequest req) {
            int q = req.uri().indexOf('?');
            String path = q < 0 ? req.uri() : req.uri().substring(0, q);
            if (req.method() == HttpMethod.GET && path.equals("/benchmark/hello")) {
                return response(req, HttpResponseStatus.OK, HELLO.duplicate(), TEXT_PLAIN);
            }
            if (req.method() == HttpMethod.GET && path.equals("/benchmark/json")) {
                String json = "{\"status\":\"ok\",\"timestamp\":" + System.currentTimeMillis()
                        + ",\"data\":{\"message\":\"Hello, World!\",\"server\":\"netty\",\"version\":\"4.2\"}}";
                ByteBuf body = ctx.alloc().buffer(json.length());
                body.writeCharSequence(json, StandardCharsets.US_ASCII);
                return response(req, HttpResponseStatus.OK, body, APPLICATION_JSON);
            }
            return response(req, HttpResponseStatus.NOT_FOUND,
                    Unpooled.copiedBuffer("Not Found", StandardCharsets.US_ASCII), TEXT_PLAIN);
        }

        private static FullHttpResponse response(HttpRequest req, HttpResponseStatus status, ByteBuf body,
                                                 AsciiString type) {
            FullHttpResponse resp = new DefaultFullHttpResponse(req.protocolVersion(), status, body, false, false);
            resp.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
            return resp;
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush(); // one flush for every response produced from this read batch
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
