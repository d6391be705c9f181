internal import CLibYAML
import FormsCore

/// Owns one libyaml parser and the input bytes it reads; frees both in `deinit`.
final class LibYAMLParser {
  private var parser = yaml_parser_t()
  private let input: UnsafeMutableBufferPointer<UInt8>

  init(bytes: [UInt8]) throws(YAMLError) {
    input = .allocate(capacity: max(bytes.count, 1))
    _ = input.initialize(from: bytes)
    guard yaml_parser_initialize(&parser) == 1 else {
      input.deallocate()
      throw YAMLError(message: "libyaml could not start (out of memory)", position: SourcePosition(line: 1, column: 1))
    }
    yaml_parser_set_input_string(&parser, input.baseAddress, bytes.count)
  }

  deinit {
    yaml_parser_delete(&parser)
    input.deallocate()
  }

  /// The next event, converted to a Swift value; libyaml's event is freed before returning.
  func next() throws(YAMLError) -> YAMLEvent {
    var event = yaml_event_t()
    guard yaml_parser_parse(&parser, &event) == 1 else { throw currentError() }
    defer { yaml_event_delete(&event) }
    let position = SourcePosition(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
    switch event.type {
    case YAML_STREAM_START_EVENT: return YAMLEvent(kind: .streamStart, position: position)
    case YAML_STREAM_END_EVENT: return YAMLEvent(kind: .streamEnd, position: position)
    case YAML_DOCUMENT_START_EVENT: return YAMLEvent(kind: .documentStart, position: position)
    case YAML_DOCUMENT_END_EVENT: return YAMLEvent(kind: .documentEnd, position: position)
    case YAML_ALIAS_EVENT:
      return YAMLEvent(kind: .alias(anchor: string(event.data.alias.anchor) ?? ""), position: position)
    case YAML_SCALAR_EVENT:
      let s = event.data.scalar
      let text = String(decoding: UnsafeBufferPointer(start: s.value, count: Int(s.length)), as: UTF8.self)
      return YAMLEvent(
        kind: .scalar(text: text, plain: s.style == YAML_PLAIN_SCALAR_STYLE, tag: string(s.tag)),
        position: position, anchor: string(s.anchor))
    case YAML_SEQUENCE_START_EVENT:
      let s = event.data.sequence_start
      return YAMLEvent(kind: .sequenceStart(tag: string(s.tag)), position: position, anchor: string(s.anchor))
    case YAML_SEQUENCE_END_EVENT: return YAMLEvent(kind: .sequenceEnd, position: position)
    case YAML_MAPPING_START_EVENT:
      let m = event.data.mapping_start
      return YAMLEvent(kind: .mappingStart(tag: string(m.tag)), position: position, anchor: string(m.anchor))
    case YAML_MAPPING_END_EVENT: return YAMLEvent(kind: .mappingEnd, position: position)
    default: return YAMLEvent(kind: .streamEnd, position: position)
    }
  }

  private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
    guard let pointer else { return nil }
    return String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
  }

  private func currentError() -> YAMLError {
    let mark = parser.problem_mark
    var position = SourcePosition(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    var message = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
    if let context = parser.context.map({ String(cString: $0) }) {
      message = "\(message) (\(context) at \(Int(parser.context_mark.line) + 1):\(Int(parser.context_mark.column) + 1))"
    }
    let offset = Int(mark.index)
    if offset < input.count && input[offset] == 0x09 {
      message = "a tab character where indentation belongs; YAML indents with spaces"
    }
    if parser.error == YAML_READER_ERROR {
      message = "the file is not valid UTF-8 (\(message))"
      position = SourcePosition.of(offset: Int(parser.problem_offset), in: UnsafeBufferPointer(input))
    }
    return YAMLError(message: message, position: position)
  }
}

/// A libyaml event as a Swift value.
struct YAMLEvent {
  enum Kind {
    case streamStart, streamEnd, documentStart, documentEnd
    case alias(anchor: String)
    case scalar(text: String, plain: Bool, tag: String?)
    case sequenceStart(tag: String?)
    case sequenceEnd
    case mappingStart(tag: String?)
    case mappingEnd
  }

  let kind: Kind
  let position: SourcePosition
  var anchor: String? = nil
}
