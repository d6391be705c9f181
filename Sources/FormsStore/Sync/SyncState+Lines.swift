import FormsCore
import Foundation

/// The lines of a kind's records and log: one record per line, its fields tab-separated and
/// escaped as PostgreSQL's COPY text format escapes them.
extension SyncState.Table {
  /// `id status last_synced sha256 revision remote_revision problem text theirs stamp`, tab-separated.
  static func line(_ record: SyncState.Record) -> String {
    func text(_ text: SyncState.Text?) -> String {
      guard case .kept(let offset, let length)? = text else { return "" }
      return "\(offset):\(length)"
    }
    let stamp = record.stamp.map {
      "\($0.file.size):\($0.file.mtimeNanoseconds):\($0.file.ctimeNanoseconds):\(Int64(bitPattern: $0.file.inode)):\($0.recorded)"
    }
    return [
      record.id, record.status.rawValue, record.lastSynced ?? "", record.sha256 ?? "",
      record.revision.map(String.init) ?? "", record.remoteRevision.map(String.init) ?? "", record.problem ?? "",
      text(record.text), text(record.theirs), stamp ?? "",
    ].map(escaped).joined(separator: "\t")
  }

  /// A record from its line's fields (the numbers read straight from the bytes: a kind's
  /// records are read on every run).
  static func record(_ line: ArraySlice<UInt8>, _ fields: [Range<Int>], kind: String, numbers: inout [Int64])
    -> SyncState.Record?
  {
    guard fields.count == 10, let status = status(line[fields[1]]) else { return nil }
    /// The `:`-separated numbers of a field, into `numbers`; false when one is not a number.
    func parse(_ field: ArraySlice<UInt8>) -> Bool {
      numbers.removeAll(keepingCapacity: true)
      var start = field.startIndex
      for index in field.indices where field[index] == UInt8(ascii: ":") {
        guard let value = number(field[start..<index]) else { return false }
        numbers.append(value)
        start = index + 1
      }
      guard let last = number(field[start...]) else { return field.isEmpty }
      numbers.append(last)
      return true
    }
    func text(_ field: ArraySlice<UInt8>) -> SyncState.Text? {
      parse(field) && numbers.count == 2 ? .kept(offset: numbers[0], length: Int(numbers[1])) : nil
    }
    let stamp =
      parse(line[fields[9]]) && numbers.count == 5
      ? SyncState.Stamp(
        file: FileStamp(
          size: Int(numbers[0]), mtimeNanoseconds: numbers[1], ctimeNanoseconds: numbers[2],
          inode: UInt64(bitPattern: numbers[3])), recorded: numbers[4]) : nil
    func optional(_ field: ArraySlice<UInt8>) -> String? { field.isEmpty ? nil : unescaped(field) }
    return SyncState.Record(
      kind: kind, id: unescaped(line[fields[0]]), status: status, lastSynced: optional(line[fields[2]]),
      text: text(line[fields[7]]), sha256: optional(line[fields[3]]), revision: number(line[fields[4]]),
      theirs: text(line[fields[8]]), problem: optional(line[fields[6]]), remoteRevision: number(line[fields[5]]),
      stamp: stamp)
  }

  /// The status a field names, without making a string of it.
  static func status(_ field: ArraySlice<UInt8>) -> SyncState.Status? {
    SyncState.Status.allCases.first { $0.rawValue.utf8.elementsEqual(field) }
  }

  /// A decimal integer (an inode is written as its signed bit pattern), nil when it is not one.
  static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
    var value: Int64 = 0
    var negative = false
    var any = false
    for (index, byte) in digits.enumerated() {
      if index == 0 && byte == UInt8(ascii: "-") {
        negative = true
        continue
      }
      guard byte >= 0x30 && byte <= 0x39 else { return nil }
      let (times, overflow) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - 0x30))
      guard !overflow && !overflow2 else { return nil }
      value = sum
      any = true
    }
    return any ? (negative ? -value : value) : nil
  }

  /// Backslash, tab, newline and carriage return escaped, so a field is one tab-free line (the
  /// escapes of PostgreSQL's COPY text format too).
  package static func escaped(_ field: String) -> String {
    guard field.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return field }
    var out = String.UnicodeScalarView()
    for scalar in field.unicodeScalars {
      switch scalar {
      case "\\": out += "\\\\".unicodeScalars
      case "\t": out += "\\t".unicodeScalars
      case "\n": out += "\\n".unicodeScalars
      case "\r": out += "\\r".unicodeScalars
      default: out.append(scalar)
      }
    }
    return String(out)
  }

  static func unescaped(_ field: ArraySlice<UInt8>) -> String {
    guard field.contains(0x5C) else { return String(decoding: field, as: UTF8.self) }
    var out: [UInt8] = []
    var escaping = false
    for byte in field {
      if escaping {
        switch byte {
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        default: out.append(byte)
        }
        escaping = false
      } else if byte == 0x5C {
        escaping = true
      } else {
        out.append(byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
