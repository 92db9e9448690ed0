import Bulkhead
import BulkheadTesting
import Examples

extension ExampleScripts {
  /// The lobby's desk asks the fake quote server (`async` calls, and a stream): each answer
  /// comes after the server's latency on `clock`; an unknown guest's error arrives as itself;
  /// a cancelled question never answers; a stream sends three quotes and finishes, and an
  /// unknown guest's stream ends with the server's error.
  public static func lobbyQuotes(_ store: TestStore<Lobby.State, Lobby.Action>, clock: TestClock) async {
    await store.send(.desk(.quoteTapped("Blob")))
    await clock.advance(by: QuoteClient.latency)
    await store.receive(.desk(.quoteArrived("Blob: well begun is half done"))) {
      $0.desk.quotes = ["Blob: well begun is half done"]
    }

    await store.send(.desk(.quoteTapped("?Nobody")))
    await clock.advance(by: QuoteClient.latency)
    await store.receive(.desk(.quoteRefused(.unknownGuest("?Nobody")))) {
      $0.desk.quoteProblems = ["the quote server does not know \"?Nobody\""]
    }

    await store.send(.desk(.quoteTapped("Blob Jr")))
    await store.send(.desk(.cancelQuoteTapped))
    await clock.advance(by: QuoteClient.latency)

    await store.send(.desk(.followQuotes("Blob")))
    for count in 1...3 {
      await clock.advance(by: QuoteClient.latency)
      await store.receive(.desk(.quoteArrived("Blob: quote \(count) of 3"))) {
        $0.desk.quotes.append("Blob: quote \(count) of 3")
      }
    }

    await store.send(.desk(.followQuotes("?Nobody")))
    await clock.advance(by: QuoteClient.latency)
    await store.receive(.desk(.quoteRefused(.unknownGuest("?Nobody")))) {
      $0.desk.quoteProblems.append("the quote server does not know \"?Nobody\"")
    }
    await store.finish()
  }
}
