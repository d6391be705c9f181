import FormsCore

extension DescriptorCompiler {
  /// `attachments:`, a mapping of names to `{types: [media types], max_size: 20MB, required_in: [states]}`.
  mutating func compileAttachments(_ node: YAMLNode, workflow: Schema.Workflow?, _ root: SchemaType)
    -> [Schema.Attachment]
  {
    guard let pairs = node.mapping else {
      error("attachments must be a mapping of names to {types, max_size, required_in}", at: node.position)
      return []
    }
    let keys = ["types", "max_size", "required_in"]
    let knownTypes = MediaType.known.keys.sorted()
    var attachments: [Schema.Attachment] = []
    for pair in pairs {
      guard let name = pair.key.scalar?.text else { continue }
      if !Schema.Attachment.isValidName(name) {
        error(
          "attachment name \"\(name)\" must be a lowercase letter, then lowercase letters, digits, '_' and '-' "
            + "(at most 64)", at: pair.key.position)
        continue
      }
      for key in pair.value.mapping ?? [] where !keys.contains(key.key.scalar?.text ?? "") {
        unknownKey(key.key, allowed: keys, context: "attachment \(name)")
      }
      var types: [String] = []
      if let list = pair.value["types"]?.sequence, !list.isEmpty {
        for entry in list {
          guard let type = string(entry, "a media type") else { continue }
          if MediaType.known[type] == nil {
            error(
              "unknown media type \"\(type)\"\(didYouMean(type, among: knownTypes)); formsctl knows "
                + knownTypes.joined(separator: ", "), at: entry.position)
          } else {
            types.append(type)
          }
        }
      } else {
        error(
          "attachment \(name) needs `types:`, a list of media types", at: (pair.value["types"] ?? pair.value).position)
      }
      var maxSize = Schema.Attachment.largestSize
      if let node = pair.value["max_size"] {
        if let text = node.scalar?.text, let size = ByteSize.parse(text) {
          if size > Schema.Attachment.largestSize {
            error(
              "max_size \(text) is more than formsctl keeps in a store (\(ByteSize.describe(Schema.Attachment.largestSize)))",
              at: node.position)
          }
          maxSize = min(size, Schema.Attachment.largestSize)
        } else {
          error("max_size must be a size such as 20MB or 512KiB", at: node.position)
        }
      }
      var requiredIn: [String] = []
      if let node = pair.value["required_in"] {
        if workflow == nil {
          error("required_in names workflow states: the descriptor needs a `workflow:`", at: node.position)
        }
        for entry in node.sequence ?? [] {
          guard let state = string(entry, "a state") else { continue }
          if let workflow, let states = root.fields[workflow.field]?.type.values, !states.contains(state) {
            error("\"\(state)\" is not a state of \(workflow.field)", at: entry.position)
          }
          requiredIn.append(state)
        }
        if node.sequence == nil { error("required_in must be a list of states", at: node.position) }
      }
      attachments.append(Schema.Attachment(name: name, types: types, maxSize: maxSize, requiredIn: requiredIn))
    }
    return attachments
  }
}
