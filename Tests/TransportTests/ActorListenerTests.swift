import Foundation
import TestThreads
import Testing
import Transport
import TransportTestSupport

/// `ActorListener`: one thread serves every connection, within its limits, and says what it
/// refuses or closes.
@Suite(.onItsOwnThread) struct ActorListenerTests {
  @Test func everyConnectionIsServedAndStopEndsThemAndRemovesTheSocket() async throws {
    let served = try Served(limits: .standard)
    defer { served.stop() }
    let clients = try (0..<50).map { _ in try served.client() }
    for (number, client) in clients.enumerated() {
      #expect(try await client.calculator.add(number, 1) == number + 1)
    }
    served.listener.stop()
    #expect(!FileManager.default.fileExists(atPath: served.listener.path))
    for client in clients {
      await #expect(throws: RemoteCallError.peerDisconnected) { try await client.calculator.add(1, 1) }
      client.system.close()
    }
  }

  @Test func callsRunOnTheListenersThreadAsTheyAreRead() async throws {
    let served = try Served(limits: .standard)
    defer { served.stop() }
    let client = try served.client()
    defer { client.system.close() }
    // In no task: run by the thread that read it, not queued for the cooperative pool.
    #expect(try await client.calculator.runsInTask() == false)
  }

  @Test func aClientThatSendsHalfAHeaderOrNothingIsClosedAtItsDeadlineAndReported() async throws {
    let deadline = Duration.milliseconds(200)
    let idle = Duration.milliseconds(300)
    let events = EventLog<ListenerEvent>()
    let served = try Served(
      limits: ActorListener.Limits(readDeadline: deadline, idleDeadline: idle, maximumConnections: 8), events: events)
    defer { served.stop() }
    let silent = try UnixSocket.connect(to: served.listener.path)
    let half = try UnixSocket.connect(to: served.listener.path)
    try [UInt8]([5, 0, 0]).withUnsafeBytes { try half.write($0) }
    let started = ContinuousClock.now
    // Each sees the end once the listener has closed it.
    #expect(try reachesEnd(silent, within: 10_000) && reachesEnd(half, within: 10_000))
    #expect(ContinuousClock.now - started >= deadline)
    let pid = getpid()
    #expect(await events.first { $0 == .timedOut(peer: pid, deadline: deadline, received: 3) } != nil)
    #expect(await events.first { $0 == .idle(peer: pid, after: idle) } != nil)
    #expect(
      ListenerEvent.timedOut(peer: 7, deadline: deadline, received: 3).description
        == "a connection from pid 7 was closed: its request did not come whole within 0.2 seconds (it sent 3 bytes of it)")
    #expect(ListenerEvent.idle(peer: 7, after: idle).description == "a connection from pid 7 was closed: it sent no request for 0.3 seconds")
  }

  @Test func aClientThatWaitsBetweenRequestsIsHeldToTheIdleDeadlineNotTheReadDeadline() async throws {
    let served = try Served(
      limits: ActorListener.Limits(readDeadline: .milliseconds(50), idleDeadline: .seconds(60), maximumConnections: 8))
    defer { served.stop() }
    let client = try served.client()
    defer { client.system.close() }
    // The gaps are not waits for anything: they outlast the read deadline, which runs only
    // while a request is coming, and stay far within the idle one.
    for number in 0..<3 {
      try await Task.sleep(for: .milliseconds(150))
      #expect(try await client.calculator.add(number, 1) == number + 1)
    }
  }

  @Test func anIdleDeadlineRunsFromTheLastRequest() async throws {
    let idle = Duration.milliseconds(300)
    let events = EventLog<ListenerEvent>()
    let served = try Served(
      limits: ActorListener.Limits(readDeadline: .seconds(30), idleDeadline: idle, maximumConnections: 8), events: events)
    defer { served.stop() }
    let client = try served.client()
    defer { client.system.close() }
    let started = ContinuousClock.now
    #expect(try await client.calculator.add(1, 1) == 2)
    #expect(await events.first { $0 == .idle(peer: getpid(), after: idle) } != nil)
    #expect(ContinuousClock.now - started >= idle)
    await #expect(throws: RemoteCallError.peerDisconnected) { try await client.calculator.add(2, 2) }
  }

  @Test func aConnectionBeyondTheLimitIsRefusedAndReported() async throws {
    let events = EventLog<ListenerEvent>()
    let served = try Served(limits: ActorListener.Limits(readDeadline: .seconds(30), maximumConnections: 2), events: events)
    defer { served.stop() }
    let first = try served.client()
    let second = try served.client()
    defer { [first, second].forEach { $0.system.close() } }
    // Answered, so both are served when the third comes.
    #expect(try await first.calculator.add(1, 1) == 2)
    #expect(try await second.calculator.add(2, 2) == 4)
    let third = try UnixSocket.connect(to: served.listener.path)
    #expect(try reachesEnd(third, within: 10_000))
    let pid = getpid()
    #expect(await events.first { $0 == .refused(peer: pid, reason: .tooManyConnections(open: 2)) } != nil)
    // Once one ends, another is served.
    first.system.close()
    let fourth = try served.client()
    defer { fourth.system.close() }
    #expect(try await fourth.calculator.add(3, 3) == 6)
  }

  @Test func aRequestLargerThanTheLimitIsDroppedAndReported() async throws {
    let events = EventLog<ListenerEvent>()
    let limits = ActorListener.Limits(readDeadline: .seconds(30), maximumConnections: 8, largestRequest: 1_000)
    let served = try Served(limits: limits, events: events)
    defer { served.stop() }
    let socket = try UnixSocket.connect(to: served.listener.path)
    try FramedConnection(socket).send(Frame(kind: 0x10, payload: [UInt8](repeating: 0, count: 1_001)))
    #expect(try reachesEnd(socket, within: 10_000))
    let pid = getpid()
    #expect(await events.first { $0 == .dropped(peer: pid, error: .frameTooLarge(length: 1_001, limit: 1_000)) } != nil)
  }
}

/// A listener hosting a `Calculator` on each connection, in a socket directory of its own.
private struct Served {
  let directory: SocketDirectory
  let listener: ActorListener

  init(limits: ActorListener.Limits, events: EventLog<ListenerEvent> = EventLog<ListenerEvent>()) throws {
    directory = try SocketDirectory.create()
    listener = try ActorListener(path: directory.path(for: "actors"), limits: limits, onEvent: events.append) { system in
      _ = system.hosting(Calculator.id) { Calculator(actorSystem: $0) }
    }
  }

  /// A connection read by its callers: a client that costs this process no thread, and
  /// holds a thread of the cooperative pool while it waits, which the listener does not need.
  func client() throws -> (system: SocketActorSystem, calculator: Calculator) {
    let system = SocketActorSystem(
      connection: FramedConnection(try UnixSocket.connect(to: listener.path)), reading: .byCaller)
    return (system, try Calculator.resolve(id: Calculator.id, using: system))
  }

  func stop() {
    listener.stop()
    directory.remove()
  }
}
