import Bulkhead
@testable import BulkheadDistribution
import Examples
import Foundation
import Testing
import Transport

/// The composition's control endpoint, reached over its socket as another process would.
@MainActor
@Suite(.serialized) struct ControlTests {
  @Test func theControlEndpointListsTheWorkersAndRefusesWorkersThatAreNotThere() async throws {
    let composition = try composition(app: "timers", placement: "timers pool 2\n")
    defer { composition.shutdown() }
    let path = try composition.startControl()
    #expect(try composition.startControl() == path)
    let system = SocketActorSystem(connection: FramedConnection(try UnixSocket.connect(to: path)))
    defer { system.close() }
    let control = try CompositionControl.resolve(id: CompositionControl.id, using: system)

    let placed = try await control.processes()
    #expect(placed.map(\.boundary) == ["timers"])
    #expect(placed.flatMap(\.pids) == composition.processes.flatMap(\.pids).map(Int.init))
    #expect(placed.first?.pids.count == 2)
    await #expect(throws: RemoteCallError.self) { try await control.kill(boundary: "counter", index: 0) }
    await #expect(throws: RemoteCallError.self) { try await control.kill(boundary: "timers", index: 2) }
  }

  @Test func aWorkerKilledThroughTheControlEndpointIsRestartedByTheNextAction() async throws {
    let events = Events()
    let composition = try composition(app: "two-counters", placement: "counter1\n", events: events)
    defer { composition.shutdown() }
    let system = SocketActorSystem(connection: FramedConnection(try UnixSocket.connect(to: try composition.startControl())))
    defer { system.close() }
    let control = try CompositionControl.resolve(id: CompositionControl.id, using: system)
    let killed = try #require(composition.processes.first?.pids.first)

    try await control.kill(boundary: "counter1", index: 0)
    #expect(await events.first { $0 == .workerExited(boundary: "counter1", pid: killed) } != nil)

    let store = Store(initialState: TwoCounters.State()) { composition.compose(TwoCounters()) }
    store.send(.counter1(.incrementButtonTapped))
    #expect(store.state.counter1.count == 1)
    #expect(try await control.processes().first?.pids.first.map(Int32.init) != killed)
  }

  @Test func theControlSocketGoesWithTheComposition() throws {
    let composition = try composition(app: "two-counters", placement: "counter1\n")
    let path = try composition.startControl()
    #expect(FileManager.default.fileExists(atPath: path))
    composition.shutdown()
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(throws: TransportError.self) { try UnixSocket.connect(to: path) }
  }
}
