@testable import Bulkhead
import Testing

@Suite struct NavigationPathTests {
  private let rows = AnyHashableSendable("rows")
  private let items = AnyHashableSendable("items")

  @Test func elementStepsCompareAndHashAsTheIdentitiesTheyStandFor() {
    let row = NavigationPath().appendingElement(3, of: rows)
    #expect(row == NavigationPath().appendingElement(3, of: rows))
    #expect(row.hashValue == NavigationPath().appendingElement(3, of: rows).hashValue)
    #expect(row != NavigationPath().appendingElement(4, of: rows))
    #expect(row != NavigationPath().appendingElement(3, of: items))
    // Another id type is another identity, as it was when each step was erased at once.
    #expect(row != NavigationPath().appendingElement(Int8(3), of: rows))
    #expect(row.elements == NavigationPath().appendingElement(3, of: rows).elements)
    #expect(row.elements.count == 1)
  }

  @Test func deeperPathsHaveTheirParentsAsPrefixes() {
    let root = NavigationPath()
    let row = root.appendingElement(3, of: rows)
    let item = row.appendingElement("a", of: items)
    let sheet = item.appending("sheet")
    #expect(sheet.hasPrefix(root))
    #expect(sheet.hasPrefix(row))
    #expect(sheet.hasPrefix(item))
    #expect(!row.hasPrefix(item))
    #expect(!sheet.hasPrefix(root.appendingElement(4, of: rows)))
    #expect(sheet.elements.count == 3)
    #expect(sheet == row.appendingElement("a", of: items).appending("sheet"))
    #expect(sheet != item)
  }
}
