import Bulkhead
import BulkheadTesting
import ExampleScripts
import Examples
import Foundation
import Testing

/// The errands app's features one by one, in one process, with the fake server's answers
/// on a test clock: which questions it refuses and how long it takes are the server's own
/// (`FakeServer`), checked before each test relies on them.
@MainActor
@Suite struct ErrandRowTests {
  let clock = TestClock()
  let milk = Errand(id: 0, title: "Milk", revision: 1)

  @Test func anEditSavesAfterAPauseAndAnotherEditRestartsThePause() async {
    let store = TestStore(initialState: ErrandRow.State(errand: milk)) { ErrandRow() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.view(.titleChanged("Stamp"))) {
      $0.errand.title = "Stamp"
      $0.status = .edited
    }
    await clock.advance(by: .milliseconds(200))
    await store.send(.view(.titleChanged("Stamps"))) { $0.errand.title = "Stamps" }
    // The first edit's pause would end here; the second's has 100 ms to go.
    await clock.advance(by: .milliseconds(200))
    await clock.advance(by: .milliseconds(100))
    await store.receive(._internal(.saveStarted)) { $0.status = .saving }
    let question = ErrandsAPI.Question.save(Errand(id: 0, title: "Stamps", revision: 1), attempt: 0)
    #expect(!FakeServer.refuses(question))
    await clock.advance(by: FakeServer.latency(of: question))
    await store.receive(._internal(.saved(Errand(id: 0, title: "Stamps", revision: 2)))) {
      $0.errand.revision = 2
      $0.status = .saved
    }
  }

  @Test func anEditWhileSavingCancelsTheSaveAndSavesAgain() async {
    let store = TestStore(initialState: ErrandRow.State(errand: milk)) { ErrandRow() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.view(.titleChanged("Stamps"))) {
      $0.errand.title = "Stamps"
      $0.status = .edited
    }
    await clock.advance(by: ErrandRow.saveDelay)
    await store.receive(._internal(.saveStarted)) { $0.status = .saving }
    await store.send(.view(.doneToggled)) {
      $0.errand.isDone = true
      $0.status = .edited
    }
    // The first save's answer would have come within this; it was cancelled.
    await clock.advance(by: ErrandRow.saveDelay)
    await store.receive(._internal(.saveStarted)) { $0.status = .saving }
    let question = ErrandsAPI.Question.save(Errand(id: 0, title: "Stamps", isDone: true, revision: 1), attempt: 0)
    #expect(!FakeServer.refuses(question))
    await clock.advance(by: FakeServer.latency(of: question))
    await store.receive(._internal(.saved(Errand(id: 0, title: "Stamps", isDone: true, revision: 2)))) {
      $0.errand.revision = 2
      $0.status = .saved
    }
  }

  @Test func aRefusedSaveIsToldToTheParentAndTryingAgainSaves() async {
    let store = TestStore(initialState: ErrandRow.State(errand: milk)) { ErrandRow() } withDependencies: {
      $0.continuousClock = clock
    }
    let oatMilk = Errand(id: 0, title: "Oat milk", revision: 1)
    let refused = ErrandsAPI.Question.save(oatMilk, attempt: 0)
    let retried = ErrandsAPI.Question.save(oatMilk, attempt: 1)
    #expect(FakeServer.refuses(refused) && !FakeServer.refuses(retried))
    await store.send(.view(.titleChanged("Oat milk"))) {
      $0.errand.title = "Oat milk"
      $0.status = .edited
    }
    await clock.advance(by: ErrandRow.saveDelay)
    await store.receive(._internal(.saveStarted)) { $0.status = .saving }
    await clock.advance(by: FakeServer.latency(of: refused))
    await store.receive(._internal(.saveFailed(.unavailable))) {
      $0.status = .failed(.unavailable)
      $0.failedSaves = 1
    }
    await store.receive(.delegate(.saveFailed(oatMilk, .unavailable)))
    await store.send(.view(.retryTapped)) { $0.status = .edited }
    await clock.advance(by: ErrandRow.saveDelay)
    await store.receive(._internal(.saveStarted)) { $0.status = .saving }
    await clock.advance(by: FakeServer.latency(of: retried))
    await store.receive(._internal(.saved(Errand(id: 0, title: "Oat milk", revision: 2)))) {
      $0.errand.revision = 2
      $0.status = .saved
      $0.failedSaves = 0
    }
  }
}

@MainActor
@Suite struct ChecklistTests {
  @Test func itemsAreAddedTickedAndRemoved() async {
    let store = TestStore(initialState: Checklist.State()) { Checklist() }
    await store.send(.addItemTapped("Stamps")) {
      $0.items = [Checklist.Item(id: 0, text: "Stamps")]
      $0.nextID = 1
    }
    await store.send(.addItemTapped("Envelope")) {
      $0.items.append(Checklist.Item(id: 1, text: "Envelope"))
      $0.nextID = 2
    }
    await store.send(.itemToggled(id: 1)) { $0.items[id: 1]?.isChecked = true }
    #expect(store.state.checkedCount == 1)
    await store.send(.removeItemTapped(id: 0)) { $0.items.remove(id: 0) }
    #expect(store.state.checkedCount == 1)
  }
}

@MainActor
@Suite struct ErrandDetailTests {
  let clock = TestClock()

  /// A detail with one checklist item, ticked: saving marks the errand done.
  private func detailWithTickedItem(_ errand: Errand) async -> TestStore<ErrandDetail.State, ErrandDetail.Action> {
    let store = TestStore(initialState: ErrandDetail.State(errand: errand)) { ErrandDetail() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.checklist(.addItemTapped("Envelope"))) {
      $0.checklist.items = [Checklist.Item(id: 0, text: "Envelope")]
      $0.checklist.nextID = 1
    }
    await store.send(.checklist(.itemToggled(id: 0))) { $0.checklist.items[id: 0]?.isChecked = true }
    return store
  }

  @Test func savingSendsTheErrandDoneWhenTheChecklistIsDoneAndDismisses() async {
    let milk = Errand(id: 0, title: "Milk", revision: 1)
    let store = await detailWithTickedItem(milk)
    var done = milk
    done.isDone = true
    let question = ErrandsAPI.Question.save(done, attempt: 0)
    #expect(!FakeServer.refuses(question))
    await store.send(.view(.saveTapped)) { $0.isSaving = true }
    await clock.advance(by: FakeServer.latency(of: question))
    done.revision = 2
    await store.receive(._internal(.saved(done))) { $0.isSaving = false }
    await store.receive(.delegate(.saved(done)))
    // The detail is the test store's root: its dismissal dismisses the store.
    await store.finish()
  }

  @Test func aRefusedSavePutsUpAnAlertThatTriesAgain() async {
    let bread = Errand(id: 1, title: "Bread", revision: 1)
    let store = await detailWithTickedItem(bread)
    var done = bread
    done.isDone = true
    let refused = ErrandsAPI.Question.save(done, attempt: 0)
    let retried = ErrandsAPI.Question.save(done, attempt: 1)
    #expect(FakeServer.refuses(refused) && !FakeServer.refuses(retried))
    await store.send(.view(.saveTapped)) { $0.isSaving = true }
    await clock.advance(by: FakeServer.latency(of: refused))
    await store.receive(._internal(.saveFailed(.unavailable))) {
      $0.isSaving = false
      $0.failedSaves = 1
      $0.alert = .saveFailed(.unavailable)
    }
    await store.send(.alert(.presented(.retrySaveTapped))) {
      $0.alert = nil
      $0.isSaving = true
    }
    await clock.advance(by: FakeServer.latency(of: retried))
    done.revision = 2
    await store.receive(._internal(.saved(done))) { $0.isSaving = false }
    await store.receive(.delegate(.saved(done)))
    await store.finish()
  }

  @Test func cancelDismissesWithoutSaving() async {
    let store = TestStore(initialState: ErrandDetail.State(errand: Errand(id: 0, title: "Milk"))) { ErrandDetail() }
    await store.send(.view(.titleChanged("Oat milk"))) { $0.errand.title = "Oat milk" }
    await store.send(.view(.cancelTapped))
    await store.finish()
  }
}

@MainActor
@Suite struct StopwatchTests {
  @Test func ticksEverySecondUntilStopped() async {
    let clock = TestClock()
    let store = TestStore(initialState: Stopwatch.State()) { Stopwatch() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.startTapped) { $0.isRunning = true }
    await clock.advance(by: .seconds(2))
    await store.receive(.ticked) { $0.seconds = 1 }
    await store.receive(.ticked) { $0.seconds = 2 }
    await store.send(.stopTapped) { $0.isRunning = false }
    await clock.advance(by: .seconds(5))
    await store.send(.resetTapped) { $0.seconds = 0 }
  }
}

@MainActor
@Suite struct TripTests {
  let clock = TestClock()

  @Test func asksForTheRouteTimesItselfAndFinishes() async {
    let stops = ["Milk", "Stamps"]
    let store = TestStore(initialState: Trip.State(name: "Trip 1", stops: stops)) { Trip() } withDependencies: {
      $0.continuousClock = clock
    }
    let question = ErrandsAPI.Question.route(stops: stops, attempt: 0)
    #expect(!FakeServer.refuses(question))
    await store.send(.view(.task)) { $0.isRouting = true }
    await clock.advance(by: FakeServer.latency(of: question))
    await store.receive(._internal(.routed(["Milk", "Stamps"]))) {
      $0.isRouting = false
      $0.route = ["Milk", "Stamps"]
    }
    await store.send(.stopwatch(.startTapped)) { $0.stopwatch.isRunning = true }
    await clock.advance(by: .seconds(1))
    await store.receive(.stopwatch(.ticked)) { $0.stopwatch.seconds = 1 }
    await store.send(.view(.stopTapped("Stamps")))
    await store.receive(.delegate(.stopTapped("Stamps")))
    // Finishing dismisses the screen, which cancels the stopwatch.
    await store.send(.view(.finishTapped))
    await store.receive(.delegate(.finished(visited: [])))
    await store.finish()
  }

  @Test func aRefusedRoutePutsUpAnAlertThatAsksAgain() async {
    let stops = ["Oat milk", "Stamps"]
    let store = TestStore(initialState: Trip.State(name: "Trip 1", stops: stops)) { Trip() } withDependencies: {
      $0.continuousClock = clock
    }
    let refused = ErrandsAPI.Question.route(stops: stops, attempt: 0)
    let retried = ErrandsAPI.Question.route(stops: stops, attempt: 1)
    #expect(FakeServer.refuses(refused) && !FakeServer.refuses(retried))
    await store.send(.view(.task)) { $0.isRouting = true }
    await clock.advance(by: FakeServer.latency(of: refused))
    await store.receive(._internal(.routeFailed(.unavailable))) {
      $0.isRouting = false
      $0.failedRoutes = 1
      $0.alert = .routeFailed(.unavailable)
    }
    await store.send(.alert(.presented(.retryTapped))) {
      $0.alert = nil
      $0.isRouting = true
    }
    await clock.advance(by: FakeServer.latency(of: retried))
    await store.receive(._internal(.routed(["Oat milk", "Stamps"]))) {
      $0.isRouting = false
      $0.route = ["Oat milk", "Stamps"]
    }
  }
}

@MainActor
@Suite struct TripsTests {
  @Test func aStopVisitedIsTickedOnItsTripAndAFinishedTripIsTold() async {
    var state = Trips.State()
    state.openErrands = ["Milk", "Stamps"]
    let store = TestStore(initialState: state) { Trips() }
    var trip = Trip.State(name: "Trip 1", stops: ["Milk", "Stamps"])
    await store.send(.view(.planTripTapped)) {
      $0.tripsPlanned = 1
      $0.path[id: 0] = .trip(trip)
    }
    await store.send(.path(.element(id: 0, action: .trip(.view(.stopTapped("Milk"))))))
    await store.receive(.path(.element(id: 0, action: .trip(.delegate(.stopTapped("Milk")))))) {
      $0.path[id: 1] = .stop(TripStop.State(name: "Milk"))
    }
    await store.send(.path(.element(id: 1, action: .stop(.visitedTapped))))
    trip.visited = ["Milk"]
    await store.receive(.path(.element(id: 1, action: .stop(.delegate(.visited("Milk")))))) {
      $0.path[id: 0] = .trip(trip)
    }
    await store.receive(.path(.popFrom(id: 1))) { $0.path.pop(from: 1) }
    await store.send(.path(.element(id: 0, action: .trip(.view(.finishTapped)))))
    await store.receive(.path(.element(id: 0, action: .trip(.delegate(.finished(visited: ["Milk"]))))))
    await store.receive(.delegate(.tripFinished(visited: ["Milk"])))
    await store.receive(.path(.popFrom(id: 0))) { $0.path.removeAll() }
  }

  @Test func withNoErrandOpenATripGoesToTheMarket() async {
    let store = TestStore(initialState: Trips.State()) { Trips() }
    await store.send(.view(.planTripTapped)) {
      $0.tripsPlanned = 1
      $0.path[id: 0] = .trip(Trip.State(name: "Trip 1", stops: ["Market"]))
    }
  }
}

@MainActor
@Suite struct SyncTests {
  let clock = TestClock()

  @Test func syncNowAsksTheServerOnce() async {
    let store = TestStore(initialState: Sync.State()) { Sync() } withDependencies: { $0.continuousClock = clock }
    let question = ErrandsAPI.Question.status(since: 0, attempt: 0)
    #expect(!FakeServer.refuses(question))
    await store.send(.view(.syncNowTapped)) { $0.isSyncing = true }
    await clock.advance(by: FakeServer.latency(of: question))
    let status = ServerStatus(version: 1, message: "In sync at version 1")
    await store.receive(._internal(.synced(status))) {
      $0.isSyncing = false
      $0.version = 1
      $0.message = status.message
    }
    await store.receive(.delegate(.synced(status)))
  }

  @Test func autoSyncAsksOnATimerUntilTurnedOffAndARefusalIsTriedAgain() async {
    var state = Sync.State()
    state.version = 2
    let store = TestStore(initialState: state) { Sync() } withDependencies: { $0.continuousClock = clock }
    let refused = ErrandsAPI.Question.status(since: 2, attempt: 0)
    let retried = ErrandsAPI.Question.status(since: 2, attempt: 1)
    #expect(FakeServer.refuses(refused) && !FakeServer.refuses(retried))
    await store.send(.view(.autoSyncToggled(true))) { $0.isAutoSyncOn = true }
    await clock.advance(by: Sync.interval)
    await store.receive(._internal(.timerTicked)) { $0.isSyncing = true }
    await clock.advance(by: FakeServer.latency(of: refused))
    await store.receive(._internal(.syncFailed(.unavailable))) {
      $0.isSyncing = false
      $0.failures = 1
      $0.message = APIError.unavailable.description
    }
    await clock.advance(by: Sync.interval - FakeServer.latency(of: refused))
    await store.receive(._internal(.timerTicked)) { $0.isSyncing = true }
    await clock.advance(by: FakeServer.latency(of: retried))
    let status = ServerStatus(version: 3, message: "In sync at version 3")
    await store.receive(._internal(.synced(status))) {
      $0.isSyncing = false
      $0.version = 3
      $0.message = status.message
      $0.failures = 0
    }
    await store.receive(.delegate(.synced(status)))
    await store.send(.view(.autoSyncToggled(false))) { $0.isAutoSyncOn = false }
    await clock.advance(by: Sync.interval * 3)
  }
}

@MainActor
@Suite struct ErrandListTests {
  let clock = TestClock()

  @Test func createsAnErrandOnTheServer() async {
    let store = TestStore(initialState: ErrandList.State(errands: Errands.starters)) { ErrandList() } withDependencies: {
      $0.continuousClock = clock
    }
    let question = ErrandsAPI.Question.create(id: 2, title: "Stamps")
    #expect(!FakeServer.refuses(question))
    await store.send(.view(.addButtonTapped(title: "Stamps"))) {
      $0.nextID = 3
      $0.creating = 1
    }
    await clock.advance(by: FakeServer.latency(of: question))
    await store.receive(._internal(.created(Errand(id: 2, title: "Stamps", revision: 1)))) {
      $0.creating = 0
      $0.rows.append(ErrandRow.State(errand: Errand(id: 2, title: "Stamps", revision: 1)))
    }
    await store.send(.view(.deleteTapped(id: 2))) { $0.rows.remove(id: 2) }
  }

  @Test func theDetailSheetSavesIntoItsRow() async {
    let store = TestStore(initialState: ErrandList.State(errands: Errands.starters)) { ErrandList() } withDependencies: {
      $0.continuousClock = clock
    }
    let milk = Errands.starters[0]
    await store.send(.view(.errandTapped(id: 0))) { $0.destination = .detail(ErrandDetail.State(errand: milk)) }
    await store.send(.destination(.presented(.detail(.view(.titleChanged("Stamps")))))) {
      $0.destination = .detail(ErrandDetail.State(errand: Errand(id: 0, title: "Stamps", revision: 1)))
    }
    var detail = ErrandDetail.State(errand: Errand(id: 0, title: "Stamps", revision: 1))
    detail.isSaving = true
    await store.send(.destination(.presented(.detail(.view(.saveTapped))))) { $0.destination = .detail(detail) }
    let question = ErrandsAPI.Question.save(Errand(id: 0, title: "Stamps", revision: 1), attempt: 0)
    #expect(!FakeServer.refuses(question))
    await clock.advance(by: FakeServer.latency(of: question))
    let saved = Errand(id: 0, title: "Stamps", revision: 2)
    detail.isSaving = false
    await store.receive(.destination(.presented(.detail(._internal(.saved(saved)))))) { $0.destination = .detail(detail) }
    await store.receive(.destination(.presented(.detail(.delegate(.saved(saved)))))) { $0.rows[id: 0]?.errand = saved }
    await store.receive(.destination(.dismiss)) { $0.destination = nil }
  }

  @Test func aRowsRefusedSavePutsUpAnAlertWhoseRetrySavesTheRow() async {
    let store = TestStore(initialState: ErrandList.State(errands: Errands.starters)) { ErrandList() } withDependencies: {
      $0.continuousClock = clock
    }
    let oatMilk = Errand(id: 0, title: "Oat milk", revision: 1)
    let refused = ErrandsAPI.Question.save(oatMilk, attempt: 0)
    let retried = ErrandsAPI.Question.save(oatMilk, attempt: 1)
    #expect(FakeServer.refuses(refused) && !FakeServer.refuses(retried))
    await store.send(.rows(.element(id: 0, action: .view(.titleChanged("Oat milk"))))) {
      $0.rows[id: 0]?.errand.title = "Oat milk"
      $0.rows[id: 0]?.status = .edited
    }
    await clock.advance(by: ErrandRow.saveDelay)
    await store.receive(.rows(.element(id: 0, action: ._internal(.saveStarted)))) { $0.rows[id: 0]?.status = .saving }
    await clock.advance(by: FakeServer.latency(of: refused))
    await store.receive(.rows(.element(id: 0, action: ._internal(.saveFailed(.unavailable))))) {
      $0.rows[id: 0]?.status = .failed(.unavailable)
      $0.rows[id: 0]?.failedSaves = 1
    }
    await store.receive(.rows(.element(id: 0, action: .delegate(.saveFailed(oatMilk, .unavailable))))) {
      $0.destination = .alert(.saveFailed(oatMilk, .unavailable))
    }
    await store.send(.destination(.presented(.alert(.retrySave(id: 0))))) { $0.destination = nil }
    await store.receive(.rows(.element(id: 0, action: .view(.retryTapped)))) { $0.rows[id: 0]?.status = .edited }
    await clock.advance(by: ErrandRow.saveDelay)
    await store.receive(.rows(.element(id: 0, action: ._internal(.saveStarted)))) { $0.rows[id: 0]?.status = .saving }
    await clock.advance(by: FakeServer.latency(of: retried))
    await store.receive(.rows(.element(id: 0, action: ._internal(.saved(Errand(id: 0, title: "Oat milk", revision: 2)))))) {
      $0.rows[id: 0]?.errand.revision = 2
      $0.rows[id: 0]?.status = .saved
      $0.rows[id: 0]?.failedSaves = 0
    }
  }

  @Test func rowsAnsweredOutOfOrderEachGetTheirOwnAnswer() async {
    let store = TestStore(initialState: ErrandList.State(errands: Errands.starters)) { ErrandList() } withDependencies: {
      $0.continuousClock = clock
    }
    // Milk's save takes longer than that of the second row, asked later.
    let milkDone = ErrandsAPI.Question.save(Errand(id: 0, title: "Milk", isDone: true, revision: 1), attempt: 0)
    let stampsDone = ErrandsAPI.Question.save(Errand(id: 1, title: "Milk", revision: 1), attempt: 0)
    let milkLatency = FakeServer.latency(of: milkDone)
    let stampsLatency = FakeServer.latency(of: stampsDone)
    #expect(!FakeServer.refuses(milkDone) && !FakeServer.refuses(stampsDone))
    #expect(milkLatency > stampsLatency + .milliseconds(10))
    await store.send(.rows(.element(id: 0, action: .view(.doneToggled)))) {
      $0.rows[id: 0]?.errand.isDone = true
      $0.rows[id: 0]?.status = .edited
    }
    await clock.advance(by: .milliseconds(10))
    await store.send(.rows(.element(id: 1, action: .view(.titleChanged("Milk"))))) {
      $0.rows[id: 1]?.errand.title = "Milk"
      $0.rows[id: 1]?.status = .edited
    }
    await clock.advance(by: ErrandRow.saveDelay - .milliseconds(10))
    await store.receive(.rows(.element(id: 0, action: ._internal(.saveStarted)))) { $0.rows[id: 0]?.status = .saving }
    await clock.advance(by: .milliseconds(10))
    await store.receive(.rows(.element(id: 1, action: ._internal(.saveStarted)))) { $0.rows[id: 1]?.status = .saving }
    await clock.advance(by: milkLatency)
    await store.receive(.rows(.element(id: 1, action: ._internal(.saved(Errand(id: 1, title: "Milk", revision: 2)))))) {
      $0.rows[id: 1]?.errand.revision = 2
      $0.rows[id: 1]?.status = .saved
    }
    await store.receive(.rows(.element(id: 0, action: ._internal(.saved(Errand(id: 0, title: "Milk", isDone: true, revision: 2)))))) {
      $0.rows[id: 0]?.errand.revision = 2
      $0.rows[id: 0]?.status = .saved
    }
  }

  @Test func removingARowCancelsItsSave() async {
    let store = TestStore(initialState: ErrandList.State(errands: Errands.starters)) { ErrandList() } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.rows(.element(id: 1, action: .view(.titleChanged("Envelopes"))))) {
      $0.rows[id: 1]?.errand.title = "Envelopes"
      $0.rows[id: 1]?.status = .edited
    }
    await store.send(.view(.deleteTapped(id: 1))) { $0.rows.remove(id: 1) }
    await clock.advance(by: .seconds(1))
  }
}

@MainActor
@Suite struct ErrandsAppTests {
  @Test func throughEveryTab() async {
    let clock = TestClock()
    let store = TestStore(initialState: Errands.State()) { Errands() } withDependencies: { $0.continuousClock = clock }
    await ExampleScripts.errands(store, clock: clock)
  }

  @Test func theTimersOfEveryTabEndWithTheirFeatures() async {
    let clock = TestClock()
    let store = TestStore(initialState: Errands.State()) { Errands() } withDependencies: { $0.continuousClock = clock }
    await ExampleScripts.errandsTimers(store, clock: clock)
  }
}

/// The API client goes through `Codable` questions and answers, as it must to be answered by
/// another process.
@Suite struct ErrandsAPITests {
  /// A server of closures: it refuses a route on the first attempt.
  static let server = ErrandsAPI(
    save: { errand, _ in Errand(id: errand.id, title: errand.title, isDone: errand.isDone, revision: errand.revision + 1) },
    create: { Errand(id: $0, title: $1) },
    route: { stops, attempt in
      guard attempt > 0 else { throw APIError.unavailable }
      return stops.reversed()
    },
    status: { since, _ in ServerStatus(version: since + 1, message: "ok") })

  /// A client whose questions, answers and errors go through JSON to `server`, as they would
  /// to another process.
  static let overJSON = ErrandsAPI { question in
    let asked = try JSONDecoder().decode(ErrandsAPI.Question.self, from: JSONEncoder().encode(question))
    do {
      let answer = try await server.answer(asked)
      return try JSONDecoder().decode(ErrandsAPI.Answer.self, from: JSONEncoder().encode(answer))
    } catch let error as APIError {
      throw try JSONDecoder().decode(APIError.self, from: JSONEncoder().encode(error))
    }
  }

  @Test func aClientAskingOverJSONAnswersAsTheServerItAsks() async throws {
    let milk = Errand(id: 0, title: "Milk", revision: 1)
    #expect(try await Self.overJSON.save(milk, 0) == Errand(id: 0, title: "Milk", revision: 2))
    #expect(try await Self.overJSON.create(3, "Tea") == Errand(id: 3, title: "Tea"))
    #expect(try await Self.overJSON.route(["Milk", "Tea"], 1) == ["Tea", "Milk"])
    #expect(try await Self.overJSON.status(4, 0) == ServerStatus(version: 5, message: "ok"))
    await #expect(throws: APIError.unavailable) { try await Self.overJSON.route(["Milk"], 0) }
  }

  @Test func anAnswerOfTheWrongKindIsAnError() async {
    let confused = ErrandsAPI { _ in .route([]) }
    await #expect(throws: APIError.unexpectedAnswer(question: "status(since: 0, attempt: 0)", answer: "route([])")) {
      try await confused.status(0, 0)
    }
  }
}
