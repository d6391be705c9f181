import FormsCommandLine
import Testing

struct TextTableTests {
  @Test func theFirstColumnIsNeverCutOthersGiveWay() {
    let rows = [
      ["ID", "STATUS", "SUPPLIER"],
      ["0adc90c4-92fd-5ab8-8b08-ceb26b213e40", "open", "A supplier with a very long name indeed"],
      ["PO-000201", "received\u{1B}[2J", "Short"],
    ]
    let table = TextTable.render(rows, width: 60)
    let lines = table.split(separator: "\n")
    #expect(lines[1].hasPrefix("0adc90c4-92fd-5ab8-8b08-ceb26b213e40  "), "\(table)")
    #expect(lines.allSatisfy { $0.count <= 60 }, "\(table)")
    #expect(lines[1].hasSuffix("…"))
    #expect(lines[2].contains("received\\") && !lines[2].contains("\u{1B}"), "control characters are escaped: \(table)")
    // Narrower than the first column alone: the ids stay whole, the rest are cut to their least.
    let narrow = TextTable.render(rows, width: 20)
    #expect(narrow.contains("0adc90c4-92fd-5ab8-8b08-ceb26b213e40"))
  }
}
