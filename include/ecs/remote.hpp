/**
 * @file ecs/remote.hpp
 * @brief **[Addition (2.0)]** The remote inspector: RemoteServer serves a running World over HTTP,
 *        for the explorer page in a browser (`GET /`) and for scripts (`/api/...`, JSON).
 *
 * ```cpp
 * ecs::RemoteOptions opt;                 // port 27750 on 127.0.0.1, read-only, no token
 * opt.allow_writes = true;                // PUT / POST / DELETE edit the world
 * ecs::RemoteServer server(world, opt);
 * if (!server.start()) std::puts(server.error().c_str());
 * while (running) { step(world); server.poll(); }   // answers the queued requests
 * ```
 *
 * Optional and not included by ecs.hpp: it needs cpp-httplib (CMake target `ecs::remote`). The
 * routes, their JSON and their errors are those of detail/remote_router.hpp; this header is the
 * transport around it.
 *
 * Thread-safety. The world is touched only inside poll() / poll_for(), on the caller's thread,
 * which must be the thread that owns the world (and not inside an iteration). cpp-httplib's threads
 * parse requests, answer what needs no world (the page, authentication, unknown routes, refused
 * writes, oversized bodies) and queue the rest; a queued request not answered within 5 seconds gets
 * 503. poll() with nothing queued and no /api/watch stream open costs one atomic load and allocates
 * nothing. start(), stop(), attach() and record_system() belong to the world's thread too; port()
 * and error() may be read from any thread after start() returned.
 *
 * /api/watch is a Server-Sent Events stream: after each poll, one event `{"frame","rows","left"}`
 * with the rows of the expression that entered or whose reflected values changed since the
 * previous event (all rows in the first event), and the ids that left. A poll with no difference
 * sends nothing; a comment line keeps the connection checked every few seconds.
 */
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <httplib.h>

#include "detail/remote_router.hpp"

namespace ecs {

namespace detail {

/// A request waiting for the world's thread.
struct RemotePending {
    RemoteRequest request;
    RemoteResponse response;
    bool done = false;
    bool abandoned = false; ///< the client got 503: its answer is no longer wanted
};

/// One open /api/watch stream.
struct RemoteWatcher {
    RemoteWatchState state;     ///< the world's thread only
    std::mutex mutex;           ///< guards the members below
    std::condition_variable ready;
    std::deque<std::string> events;
    bool closed = false;        ///< the connection ended (or the server stops)
    bool resync = false;        ///< events were dropped: the next one lists every row again
};

} // namespace detail

/**
 * @brief Serves one World to browsers and scripts (see the file comment).
 */
class RemoteServer {
public:
    /// @brief A server for `world` (not started). `world` must outlive the server.
    RemoteServer(World& world, RemoteOptions options = {}) : router_(world, std::move(options)) {}
    RemoteServer(const RemoteServer&) = delete;
    RemoteServer& operator=(const RemoteServer&) = delete;
    ~RemoteServer() { stop(); }

    /**
     * @brief Binds and starts listening on a thread of its own.
     * @return false, with error() saying why, when the address or port cannot be bound (or when
     *         already started).
     */
    bool start() {
        if (thread_.joinable()) {
            error_ = "already started";
            return false;
        }
        server_ = std::make_unique<httplib::Server>();
        configure();
        const RemoteOptions& opt = router_.options();
        int bound = -1;
        if (opt.port == 0) {
            bound = server_->bind_to_any_port(opt.bind);
        } else if (server_->bind_to_port(opt.bind, opt.port)) {
            bound = opt.port;
        }
        if (bound <= 0) {
            error_ = "cannot listen on " + opt.bind + ":" + std::to_string(opt.port) + " (port taken or address invalid)";
            server_.reset();
            return false;
        }
        port_.store(static_cast<uint16_t>(bound));
        stopping_.store(false);
        error_.clear();
        thread_ = std::thread([this] { server_->listen_after_bind(); });
        // cpp-httplib's stop() does nothing until the listening loop runs: wait for it, so that a
        // stop() right after start() cannot leave the thread listening forever.
        for (int i = 0; i < 2000 && !server_->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return true;
    }

    /// @brief Stops listening, answers what is queued with 503 and closes the watch streams.
    ///        Also run by the destructor; idempotent.
    void stop() {
        if (!thread_.joinable()) return;
        stopping_.store(true);
        {
            std::lock_guard<std::mutex> lock(watch_mutex_);
            for (const auto& w : watchers_) {
                std::lock_guard<std::mutex> wl(w->mutex);
                w->closed = true;
                w->ready.notify_all();
            }
        }
        {
            std::lock_guard<std::mutex> lock(queue_mutex_);
            for (const auto& p : queue_) answer(*p, service_unavailable("the server is stopping"));
            queue_.clear();
            answered_.notify_all();
            arrived_.notify_all();
        }
        server_->stop();
        thread_.join();
        server_.reset();
        std::lock_guard<std::mutex> lock(watch_mutex_);
        watchers_.clear();
        work_.store(0);
    }

    /**
     * @brief Answers the queued requests and feeds the watch streams; call it once per frame on the
     *        world's thread. Nothing queued and no stream open: one atomic load, no allocation.
     */
    void poll() {
        router_.next_frame();
        if (work_.load(std::memory_order_acquire) == 0) return;
        std::vector<std::shared_ptr<detail::RemotePending>> taken;
        {
            std::lock_guard<std::mutex> lock(queue_mutex_);
            taken.swap(queue_);
            work_.fetch_sub(static_cast<uint32_t>(taken.size()), std::memory_order_acq_rel);
        }
        for (const auto& p : taken) {
            {
                std::lock_guard<std::mutex> lock(queue_mutex_);
                if (p->abandoned) continue;
            }
            detail::RemoteResponse response = router_.handle(p->request);
            std::lock_guard<std::mutex> lock(queue_mutex_);
            answer(*p, std::move(response));
            answered_.notify_all();
        }
        feed_watchers();
    }

    /// @brief Waits up to `timeout` for a request, then polls: for programs without a frame loop.
    template <typename Rep, typename Period>
    void poll_for(std::chrono::duration<Rep, Period> timeout) {
        {
            std::unique_lock<std::mutex> lock(queue_mutex_);
            arrived_.wait_for(lock, timeout, [&] { return !queue_.empty() || stopping_.load(); });
        }
        poll();
    }

    /// @brief Shows `schedule`'s plan and systems under /api/systems. It must outlive the server
    ///        (or be detached with detach()).
    void attach(Schedule& schedule) { router_.attach(&schedule); }
    /// @brief Stops showing a schedule.
    void detach() { router_.attach(nullptr); }
    /// @brief Records one run of system `name` taking `ns` nanoseconds for /api/systems (the
    ///        Schedule does not time its systems itself).
    void record_system(std::string_view name, uint64_t ns) { router_.record_system(name, ns); }

    /// @brief The bound port (after start(); opt.port = 0 picks a free one), else 0.
    [[nodiscard]] uint16_t port() const noexcept { return port_.load(); }
    /// @brief Why start() failed; empty otherwise.
    [[nodiscard]] const std::string& error() const noexcept { return error_; }
    /// @brief True between a successful start() and stop().
    [[nodiscard]] bool running() const noexcept { return thread_.joinable(); }

    /// @brief How long a request waits for poll() before 503 (default 5 s). Set before start().
    void set_answer_timeout(std::chrono::milliseconds timeout) { router_.answer_timeout = timeout; }

private:
    static detail::RemoteResponse service_unavailable(const char* why) {
        detail::RemoteResponse r;
        r.status = 503;
        r.body = std::string("{\"error\":\"") + why + "\"}";
        return r;
    }

    static void answer(detail::RemotePending& p, detail::RemoteResponse response) {
        if (p.done) return;
        p.response = std::move(response);
        p.done = true;
    }

    static void send(httplib::Response& res, const detail::RemoteResponse& r) {
        res.status = r.status;
        res.set_header("Cache-Control", "no-store");
        res.set_content(r.body, r.content_type.c_str());
    }

    void configure() {
        httplib::Server& s = *server_;
        s.new_task_queue = [] { return new httplib::ThreadPool(16); }; // /api/watch streams hold a thread each
        s.set_payload_max_length(router_.options().max_body);
        s.set_keep_alive_timeout(2);
        s.set_read_timeout(5, 0);
        s.set_write_timeout(5, 0);
        s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
            if (!res.body.empty()) return;
            std::string message = res.status == 413 ? "body over max_body" : "bad request";
            res.set_content("{\"error\":\"" + message + "\"}", "application/json");
        });
        s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
            res.status = 500;
            res.set_content("{\"error\":\"internal error\"}", "application/json");
        });
        // One handler for every path and method (the router does the routing); registered per
        // method so that cpp-httplib reads the body first.
        const auto handler = [this](const httplib::Request& req, httplib::Response& res) { serve(req, res); };
        s.Get(".*", handler);
        s.Post(".*", handler);
        s.Put(".*", handler);
        s.Patch(".*", handler);
        s.Delete(".*", handler);
        s.Options(".*", handler);
        // SO_REUSEADDR only: cpp-httplib's default also sets SO_REUSEPORT, with which a second
        // server could bind a port already in use instead of failing.
        s.set_socket_options([](auto sock) {
            int yes = 1;
            setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const char*>(&yes), sizeof(yes));
        });
    }

    /// A cpp-httplib thread: answers what needs no world, else queues and waits for poll().
    void serve(const httplib::Request& req, httplib::Response& res) {
        auto pending = std::make_shared<detail::RemotePending>();
        detail::RemoteRequest& r = pending->request;
        r.method = req.method;
        r.path = req.target.empty() ? req.path : req.target;
        r.authorization = req.get_header_value("Authorization");
        r.body = req.body;
        detail::RemoteResponse early;
        if (router_.answer_early(r, early)) return send(res, early);

        std::unique_lock<std::mutex> lock(queue_mutex_);
        if (stopping_.load()) return send(res, service_unavailable("the server is stopping"));
        queue_.push_back(pending);
        work_.fetch_add(1, std::memory_order_acq_rel);
        arrived_.notify_all();
        const bool done = answered_.wait_for(lock, router_.answer_timeout, [&] { return pending->done; });
        if (!done) {
            pending->abandoned = true;
            for (auto it = queue_.begin(); it != queue_.end(); ++it)
                if (*it == pending) {
                    queue_.erase(it);
                    work_.fetch_sub(1, std::memory_order_acq_rel);
                    break;
                }
            lock.unlock();
            return send(res, service_unavailable("the world's thread did not answer within the timeout (is poll() called?)"));
        }
        detail::RemoteResponse response = std::move(pending->response);
        lock.unlock();
        if (response.status == 200 && !response.watch_expr.empty()) return open_stream(res, std::move(response.watch_expr));
        send(res, response);
    }

    /// Turns a validated /api/watch request into an event stream.
    void open_stream(httplib::Response& res, std::string expr) {
        auto w = std::make_shared<detail::RemoteWatcher>();
        w->state.expr = std::move(expr);
        {
            std::lock_guard<std::mutex> lock(watch_mutex_);
            if (stopping_.load()) return send(res, service_unavailable("the server is stopping"));
            watchers_.push_back(w);
            work_.fetch_add(1, std::memory_order_acq_rel);
        }
        res.status = 200;
        res.set_header("Cache-Control", "no-store");
        res.set_chunked_content_provider(
            "text/event-stream",
            [w](size_t, httplib::DataSink& sink) {
                std::unique_lock<std::mutex> lock(w->mutex);
                w->ready.wait_for(lock, std::chrono::seconds(2), [&] { return !w->events.empty() || w->closed; });
                if (w->closed) return false;
                std::string out;
                while (!w->events.empty()) {
                    out += "data: ";
                    out += w->events.front();
                    out += "\n\n";
                    w->events.pop_front();
                }
                lock.unlock();
                if (out.empty()) out = ": alive\n\n"; // finds a closed connection
                return sink.write(out.data(), out.size());
            },
            [w](bool) {
                std::lock_guard<std::mutex> lock(w->mutex);
                w->closed = true;
            });
    }

    /// The world's thread: one event per open stream with something to say; closed streams go.
    void feed_watchers() {
        std::lock_guard<std::mutex> lock(watch_mutex_);
        for (auto it = watchers_.begin(); it != watchers_.end();) {
            detail::RemoteWatcher& w = **it;
            bool closed = false;
            bool resync = false;
            {
                std::lock_guard<std::mutex> wl(w.mutex);
                closed = w.closed;
                resync = w.resync;
                w.resync = false;
            }
            if (closed) {
                it = watchers_.erase(it);
                work_.fetch_sub(1, std::memory_order_acq_rel);
                continue;
            }
            if (resync) {
                w.state.first = true;
                w.state.rows.clear();
            }
            std::string event = router_.watch_event(w.state);
            if (!event.empty()) {
                std::lock_guard<std::mutex> wl(w.mutex);
                if (w.events.size() >= 256) { // a slow reader: drop, then send every row again
                    w.events.clear();
                    w.resync = true;
                } else {
                    w.events.push_back(std::move(event));
                }
                w.ready.notify_all();
            }
            ++it;
        }
    }

    detail::RemoteRouter router_;
    std::unique_ptr<httplib::Server> server_;
    std::thread thread_;
    std::string error_;
    std::atomic<uint16_t> port_{0};
    std::atomic<bool> stopping_{false};
    /// Queued requests plus open watch streams: poll() has work when this is not 0.
    std::atomic<uint32_t> work_{0};
    std::mutex queue_mutex_;
    std::condition_variable arrived_;  ///< a request was queued (poll_for)
    std::condition_variable answered_; ///< a request was answered
    std::vector<std::shared_ptr<detail::RemotePending>> queue_;
    std::mutex watch_mutex_;
    std::vector<std::shared_ptr<detail::RemoteWatcher>> watchers_;
};

} // namespace ecs
