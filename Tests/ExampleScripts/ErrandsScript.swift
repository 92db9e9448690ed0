import Bulkhead
import BulkheadTesting
import Examples

extension ExampleScripts {
  /// The errands app through its three tabs: a creation on the server; a row's refused save
  /// (the list's alert and the app's banner) tried again from the alert; the detail sheet,
  /// whose checklist marks the errand done and whose refused save puts up an alert inside the
  /// sheet; a trip whose route the server refuses once (an alert on the stack's screen),
  /// whose stopwatch ticks, whose stop is visited on a screen above it, and whose finish
  /// marks the visited errand done, saved by the list; and a sync. The fake server's latencies and refusals are its own, checked
  /// where the script relies on them. `clock` must be the store's clock.
  public static func errands(_ store: TestStore<Errands.State, Errands.Action>, clock: TestClock) async {
    // A creation.
    let create = ErrandsAPI.Question.create(id: 2, title: "Stamps")
    await store.send(.list(.view(.addButtonTapped(title: "Stamps")))) {
      $0.list.nextID = 3
      $0.list.creating = 1
    }
    await clock.advance(by: FakeServer.latency(of: create))
    let stamps = Errand(id: 2, title: "Stamps", revision: 1)
    await store.receive(.list(._internal(.created(stamps)))) {
      $0.list.creating = 0
      $0.list.rows.append(ErrandRow.State(errand: stamps))
    }

    // A row's save, refused, then saved from the alert.
    let oatMilk = Errand(id: 0, title: "Oat milk", revision: 1)
    await store.send(.list(.rows(.element(id: 0, action: .view(.titleChanged("Oat milk")))))) {
      $0.list.rows[id: 0]?.errand.title = "Oat milk"
      $0.list.rows[id: 0]?.status = .edited
    }
    await clock.advance(by: ErrandRow.saveDelay)
    await store.receive(.list(.rows(.element(id: 0, action: ._internal(.saveStarted))))) {
      $0.list.rows[id: 0]?.status = .saving
    }
    await clock.advance(by: FakeServer.latency(of: .save(oatMilk, attempt: 0)))
    await store.receive(.list(.rows(.element(id: 0, action: ._internal(.saveFailed(.unavailable)))))) {
      $0.list.rows[id: 0]?.status = .failed(.unavailable)
      $0.list.rows[id: 0]?.failedSaves = 1
    }
    await store.receive(.list(.rows(.element(id: 0, action: .delegate(.saveFailed(oatMilk, .unavailable)))))) {
      $0.list.destination = .alert(.saveFailed(oatMilk, .unavailable))
      $0.banner = "\"Oat milk\" was not saved"
    }
    await store.send(.list(.destination(.presented(.alert(.retrySave(id: 0)))))) { $0.list.destination = nil }
    await store.receive(.list(.rows(.element(id: 0, action: .view(.retryTapped))))) {
      $0.list.rows[id: 0]?.status = .edited
    }
    await clock.advance(by: ErrandRow.saveDelay)
    await store.receive(.list(.rows(.element(id: 0, action: ._internal(.saveStarted))))) {
      $0.list.rows[id: 0]?.status = .saving
    }
    await clock.advance(by: FakeServer.latency(of: .save(oatMilk, attempt: 1)))
    await store.receive(.list(.rows(.element(id: 0, action: ._internal(.saved(Errand(id: 0, title: "Oat milk", revision: 2))))))) {
      $0.list.rows[id: 0]?.errand.revision = 2
      $0.list.rows[id: 0]?.status = .saved
      $0.list.rows[id: 0]?.failedSaves = 0
    }

    // The detail sheet: its checklist, and an alert inside it.
    let bread = Errand(id: 1, title: "Bread", revision: 1)
    var detail = ErrandDetail.State(errand: bread)
    await store.send(.list(.view(.errandTapped(id: 1)))) { $0.list.destination = .detail(detail) }
    detail.checklist.items = [Checklist.Item(id: 0, text: "Wholemeal")]
    detail.checklist.nextID = 1
    await store.send(.list(.destination(.presented(.detail(.checklist(.addItemTapped("Wholemeal"))))))) {
      $0.list.destination = .detail(detail)
    }
    detail.checklist.items[id: 0]?.isChecked = true
    await store.send(.list(.destination(.presented(.detail(.checklist(.itemToggled(id: 0))))))) {
      $0.list.destination = .detail(detail)
    }
    var doneBread = bread
    doneBread.isDone = true
    detail.isSaving = true
    await store.send(.list(.destination(.presented(.detail(.view(.saveTapped)))))) { $0.list.destination = .detail(detail) }
    await clock.advance(by: FakeServer.latency(of: .save(doneBread, attempt: 0)))
    detail.isSaving = false
    detail.failedSaves = 1
    detail.alert = .saveFailed(.unavailable)
    await store.receive(.list(.destination(.presented(.detail(._internal(.saveFailed(.unavailable))))))) {
      $0.list.destination = .detail(detail)
    }
    detail.alert = nil
    detail.isSaving = true
    await store.send(.list(.destination(.presented(.detail(.alert(.presented(.retrySaveTapped))))))) {
      $0.list.destination = .detail(detail)
    }
    await clock.advance(by: FakeServer.latency(of: .save(doneBread, attempt: 1)))
    doneBread.revision = 2
    detail.isSaving = false
    await store.receive(.list(.destination(.presented(.detail(._internal(.saved(doneBread))))))) {
      $0.list.destination = .detail(detail)
    }
    await store.receive(.list(.destination(.presented(.detail(.delegate(.saved(doneBread))))))) {
      $0.list.rows[id: 1]?.errand = doneBread
    }
    await store.receive(.list(.destination(.dismiss))) { $0.list.destination = nil }

    // A trip through the errands still open, whose route is refused once, from a screen of
    // the stack: the alert on the screen asks again.
    await store.send(.tabSelected(.trips)) {
      $0.selectedTab = .trips
      $0.trips.openErrands = ["Oat milk", "Stamps"]
    }
    var trip = Trip.State(name: "Trip 1", stops: ["Oat milk", "Stamps"])
    await store.send(.trips(.view(.planTripTapped))) {
      $0.trips.tripsPlanned = 1
      $0.trips.path[id: 0] = .trip(trip)
    }
    trip.isRouting = true
    await store.send(.trips(.path(.element(id: 0, action: .trip(.view(.task)))))) { $0.trips.path[id: 0] = .trip(trip) }
    await clock.advance(by: FakeServer.latency(of: .route(stops: trip.stops, attempt: 0)))
    trip.isRouting = false
    trip.failedRoutes = 1
    trip.alert = .routeFailed(.unavailable)
    await store.receive(.trips(.path(.element(id: 0, action: .trip(._internal(.routeFailed(.unavailable))))))) {
      $0.trips.path[id: 0] = .trip(trip)
    }
    trip.alert = nil
    trip.isRouting = true
    await store.send(.trips(.path(.element(id: 0, action: .trip(.alert(.presented(.retryTapped))))))) {
      $0.trips.path[id: 0] = .trip(trip)
    }
    await clock.advance(by: FakeServer.latency(of: .route(stops: trip.stops, attempt: 1)))
    trip.isRouting = false
    trip.route = ["Oat milk", "Stamps"]
    await store.receive(.trips(.path(.element(id: 0, action: .trip(._internal(.routed(["Oat milk", "Stamps"]))))))) {
      $0.trips.path[id: 0] = .trip(trip)
    }
    trip.stopwatch.isRunning = true
    await store.send(.trips(.path(.element(id: 0, action: .trip(.stopwatch(.startTapped)))))) {
      $0.trips.path[id: 0] = .trip(trip)
    }
    await clock.advance(by: .seconds(1))
    trip.stopwatch.seconds = 1
    await store.receive(.trips(.path(.element(id: 0, action: .trip(.stopwatch(.ticked)))))) {
      $0.trips.path[id: 0] = .trip(trip)
    }
    await store.send(.trips(.path(.element(id: 0, action: .trip(.view(.stopTapped("Stamps")))))))
    await store.receive(.trips(.path(.element(id: 0, action: .trip(.delegate(.stopTapped("Stamps"))))))) {
      $0.trips.path[id: 1] = .stop(TripStop.State(name: "Stamps"))
    }
    await store.send(.trips(.path(.element(id: 1, action: .stop(.visitedTapped)))))
    trip.visited = ["Stamps"]
    await store.receive(.trips(.path(.element(id: 1, action: .stop(.delegate(.visited("Stamps"))))))) {
      $0.trips.path[id: 0] = .trip(trip)
    }
    await store.receive(.trips(.path(.popFrom(id: 1)))) { $0.trips.path.pop(from: 1) }

    // Finishing the trip pops it (its stopwatch ends) and marks Stamps done, which the list saves.
    await store.send(.trips(.path(.element(id: 0, action: .trip(.view(.finishTapped))))))
    await store.receive(.trips(.path(.element(id: 0, action: .trip(.delegate(.finished(visited: ["Stamps"])))))))
    await store.receive(.trips(.delegate(.tripFinished(visited: ["Stamps"])))) { $0.banner = "Trip finished: 1 errand done" }
    await store.receive(.list(.markDone(ids: [2]))) {
      $0.list.rows[id: 2]?.errand.isDone = true
      $0.list.rows[id: 2]?.status = .saving
    }
    await store.receive(.trips(.path(.popFrom(id: 0)))) { $0.trips.path.removeAll() }
    var doneStamps = stamps
    doneStamps.isDone = true
    await clock.advance(by: FakeServer.latency(of: .save(doneStamps, attempt: 0)))
    doneStamps.revision = 2
    await store.receive(.list(._internal(.markedDone(doneStamps)))) {
      $0.list.rows[id: 2]?.errand.revision = 2
      $0.list.rows[id: 2]?.status = .saved
    }

    // A sync.
    await store.send(.tabSelected(.sync)) { $0.selectedTab = .sync }
    await store.send(.sync(.view(.syncNowTapped))) { $0.sync.isSyncing = true }
    await clock.advance(by: FakeServer.latency(of: .status(since: 0, attempt: 0)))
    let status = ServerStatus(version: 1, message: "In sync at version 1")
    await store.receive(.sync(._internal(.synced(status)))) {
      $0.sync.isSyncing = false
      $0.sync.version = 1
      $0.sync.message = status.message
    }
    await store.receive(.sync(.delegate(.synced(status)))) { $0.banner = "In sync at version 1" }
  }

  /// The errands app's long-running effects end with what started them: auto-sync when it is
  /// turned off, a trip's stopwatch when the trip is popped, the detail's save when the sheet
  /// is dismissed, a row's pause when the row is deleted. `clock` must be the store's clock.
  public static func errandsTimers(_ store: TestStore<Errands.State, Errands.Action>, clock: TestClock) async {
    await store.send(.sync(.view(.autoSyncToggled(true)))) { $0.sync.isAutoSyncOn = true }
    await clock.advance(by: Sync.interval)
    await store.receive(.sync(._internal(.timerTicked))) { $0.sync.isSyncing = true }
    await clock.advance(by: FakeServer.latency(of: .status(since: 0, attempt: 0)))
    let status = ServerStatus(version: 1, message: "In sync at version 1")
    await store.receive(.sync(._internal(.synced(status)))) {
      $0.sync.isSyncing = false
      $0.sync.version = 1
      $0.sync.message = status.message
    }
    await store.receive(.sync(.delegate(.synced(status)))) { $0.banner = status.message }
    await store.send(.sync(.view(.autoSyncToggled(false)))) { $0.sync.isAutoSyncOn = false }

    var trip = Trip.State(name: "Trip 1", stops: ["Market"])
    await store.send(.trips(.view(.planTripTapped))) {
      $0.trips.tripsPlanned = 1
      $0.trips.path[id: 0] = .trip(trip)
    }
    trip.stopwatch.isRunning = true
    await store.send(.trips(.path(.element(id: 0, action: .trip(.stopwatch(.startTapped)))))) {
      $0.trips.path[id: 0] = .trip(trip)
    }
    await store.send(.trips(.path(.popFrom(id: 0)))) { $0.trips.path.removeAll() }

    var detail = ErrandDetail.State(errand: Errands.starters[0])
    await store.send(.list(.view(.errandTapped(id: 0)))) { $0.list.destination = .detail(detail) }
    detail.isSaving = true
    await store.send(.list(.destination(.presented(.detail(.view(.saveTapped)))))) { $0.list.destination = .detail(detail) }
    await store.send(.list(.destination(.dismiss))) { $0.list.destination = nil }

    await store.send(.list(.rows(.element(id: 1, action: .view(.doneToggled))))) {
      $0.list.rows[id: 1]?.errand.isDone = true
      $0.list.rows[id: 1]?.status = .edited
    }
    await store.send(.list(.view(.deleteTapped(id: 1)))) { $0.list.rows.remove(id: 1) }
    // Nothing is left to wake: no tick, no answer, no save arrives.
    await clock.advance(by: .seconds(30))
    await store.finish()
  }
}
