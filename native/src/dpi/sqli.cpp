// ④ libinjection's SQL injection test: see sqli.h. Our own code; the
// keyword/type table, the tokenizer chosen for each first byte and the
// fingerprint blacklist are libinjection's data (data/sqli.tsv). Where
// libinjection's behaviour is odd (signed chars, truncated token lengths,
// the byte after the input read as its NUL), it is kept on purpose: the
// answers are compared with nDPI's.
#include "dpi/sqli.h"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>

namespace fg {
namespace {

#include "dpi/generated/sqli.inc"

enum class Parser : uint8_t {
  White, Operator1, Operator2, Other, Char, Hash, Dash, Slash, Backslash, String, Word, Var, Number, Tick,
  Money, Ustring, Qstring, Nqstring, Xstring, Bstring, Estring, Bword
};
#define FG_P(p) Parser::p,
constexpr Parser kParser[256] = {FG_SQLI_PARSERS(FG_P)};
#undef FG_P

struct Word {
  std::string_view word;
  char type;
};
#define FG_W(w, t) {w, t},
constexpr Word kWords[] = {FG_SQLI_WORDS(FG_W)};
#undef FG_W

// token types (libinjection's letters, which make the fingerprint)
constexpr char kNone = 0, kKeyword = 'k', kUnion = 'U', kGroup = 'B', kExpression = 'E', kSqlType = 't',
               kFunction = 'f', kBareword = 'n', kNumber = '1', kVariable = 'v', kString = 's', kOperator = 'o',
               kLogic = '&', kComment = 'c', kCollate = 'A', kLeftParens = '(', kRightParens = ')',
               kLeftBrace = '{', kRightBrace = '}', kDot = '.', kComma = ',', kColon = ':', kSemicolon = ';',
               kTsql = 'T', kUnknown = '?', kEvil = 'X', kBackslash = '\\';

// parse flags: the quote assumed before the input, the comment dialect
constexpr int kQuoteNone = 1, kQuoteSingle = 2, kQuoteDouble = 4, kAnsi = 8, kMysql = 16;

constexpr size_t kTokenSize = 32;  // a token keeps 31 bytes of its text
constexpr size_t kMaxTokens = 5;

// libinjection reads chars as signed (x86): bytes >= 0x80 are "below" ' '.
inline bool le_space(char c) { return static_cast<signed char>(c) <= 32; }

// strchr(set, c) != NULL: NUL is always in the set.
inline bool in(const char* set, char c) { return c == 0 || std::strchr(set, c) != nullptr; }

// SQL whitespace, Latin-1's NBSP included
inline bool white(char c) { return in(" \t\n\v\f\r\240", c); }

inline char up(char c) { return c >= 'a' && c <= 'z' ? char(c - 0x20) : c; }

// The key (ASCII a-z upper-cased) in the keyword table, else kNone.
char lookup_word(const char* key, size_t len) {
  char buf[kTokenSize];
  if (len >= sizeof(buf)) return kNone;  // no word is that long
  for (size_t i = 0; i < len; i++) buf[i] = up(key[i]);
  const std::string_view k(buf, len);
  size_t lo = 0, hi = std::size(kWords);
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (kWords[mid].word < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < std::size(kWords) && kWords[lo].word == k ? kWords[lo].type : kNone;
}

// Is the fingerprint (upper-cased, so 't' and 'T' alike) on the blacklist?
bool blacklisted(const char* fp) {
  char buf[8] = {};
  size_t n = strnlen(fp, kMaxTokens + 1);
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++) buf[i] = up(fp[i]);
  size_t lo = 0, hi = std::size(kSqliFingerprints);
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (std::strcmp(kSqliFingerprints[mid], buf) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < std::size(kSqliFingerprints) && std::strcmp(kSqliFingerprints[lo], buf) == 0;
}

// Upper-case word == the first n bytes of b, case-insensitively, exactly.
bool word_is(const char* upper, const char* b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (upper[i] == 0 || upper[i] != up(b[i])) return false;
  return upper[n] == 0;
}

// first i with h[i] == c0 and h[i+1] == c1, else -1
long find2(const char* h, size_t n, char c0, char c1) {
  for (size_t i = 0; i + 1 < n; i++)
    if (h[i] == c0 && h[i + 1] == c1) return long(i);
  return -1;
}

size_t span(const char* s, size_t n, const char* set) {
  size_t i = 0;
  while (i < n && in(set, s[i])) i++;
  return i;
}
size_t cspan(const char* s, size_t n, const char* set) {
  size_t i = 0;
  while (i < n && !in(set, s[i])) i++;
  return i;
}

struct Token {
  size_t pos;
  size_t len;
  int count;
  char type;
  char str_open;
  char str_close;
  char val[kTokenSize];

  void clear() { std::memset(this, 0, sizeof(*this)); }
  // the text truncated to 31 bytes, its length with it
  void set(char t, size_t p, size_t n, const char* v) {
    const size_t k = n < kTokenSize ? n : kTokenSize - 1;
    type = t, pos = p, len = k;
    std::memcpy(val, v, k);
    val[k] = 0;
  }
  void set_char(char t, size_t p, char v) {
    type = t, pos = p, len = 1;
    val[0] = v, val[1] = 0;
  }
  bool unary() const {
    if (type != kOperator) return false;
    switch (len) {
      case 1: return val[0] == '+' || val[0] == '-' || val[0] == '!' || val[0] == '~';
      case 2: return val[0] == '!' && val[1] == '!';
      case 3: return word_is("NOT", val, 3);
      default: return false;
    }
  }
  bool arithmetic() const {
    const char c = val[0];
    return type == kOperator && len == 1 && (c == '*' || c == '/' || c == '-' || c == '+' || c == '%');
  }
};

// One tokenize-and-fold pass over the input under given flags.
class Pass {
 public:
  Pass(const char* s, size_t n) : s_(s), n_(n) {}

  // The pass's fingerprint under flags (fp_, tok_ and the stats set).
  void fingerprint(int flags);
  // Blacklisted and not cleared by the false-positive rules.
  bool injection() const { return blacklisted(fp_) && !benign(); }
  // Comments MySQL reads otherwise ("--x", '#'): worth a MySQL pass.
  bool mysql_differs() const { return ddx_ || hash_; }
  const char* fp() const { return fp_; }

 private:
  const char* s_;
  size_t n_;
  int flags_ = 0;
  size_t pos_ = 0;
  Token tok_[8];
  Token* cur_ = tok_;
  char fp_[8] = {};
  int ddx_ = 0, hash_ = 0, tokens_ = 0;

  char at(size_t i) const { return i < n_ ? s_[i] : 0; }  // nDPI's value ends in a NUL

  bool next_token();
  size_t parse(Parser p);
  size_t eol_comment();
  size_t dash();
  size_t slash();
  size_t operator2();
  size_t string_at(size_t pos, char delim, size_t offset);
  size_t estring();
  size_t ustring();
  size_t qstring(size_t offset);
  size_t nqstring();
  size_t bxstring(const char* digits);
  size_t bword();
  size_t word();
  size_t tick();
  size_t var();
  size_t money();
  size_t number();

  bool merge_words(Token& a, const Token& b);
  int fold();
  bool benign() const;
};

size_t Pass::parse(Parser p) {
  const size_t pos = pos_;
  switch (p) {
    case Parser::White: return pos + 1;
    case Parser::Operator1: cur_->set_char(kOperator, pos, s_[pos]); return pos + 1;
    case Parser::Other: cur_->set_char(kUnknown, pos, s_[pos]); return pos + 1;
    case Parser::Char: cur_->set_char(s_[pos], pos, s_[pos]); return pos + 1;
    case Parser::Hash:
      // an operator in ANSI SQL, an end-of-line comment in MySQL
      hash_++;
      if (flags_ & kMysql) {
        hash_++;
        return eol_comment();
      }
      cur_->set_char(kOperator, pos, '#');
      return pos + 1;
    case Parser::Dash: return dash();
    case Parser::Slash: return slash();
    case Parser::Backslash:
      if (pos + 1 < n_ && s_[pos + 1] == 'N') {  // MySQL's \N: NULL
        cur_->set(kNumber, pos, 2, s_ + pos);
        return pos + 2;
      }
      cur_->set_char(kBackslash, pos, s_[pos]);
      return pos + 1;
    case Parser::Operator2: return operator2();
    case Parser::String: return string_at(pos, s_[pos], 1);
    case Parser::Word: return word();
    case Parser::Var: return var();
    case Parser::Number: return number();
    case Parser::Tick: return tick();
    case Parser::Money: return money();
    case Parser::Ustring: return ustring();
    case Parser::Qstring: return qstring(0);
    case Parser::Nqstring: return nqstring();
    case Parser::Xstring: return bxstring("0123456789ABCDEFabcdef");
    case Parser::Bstring: return bxstring("01");
    case Parser::Estring: return estring();
    case Parser::Bword: return bword();
  }
  return pos + 1;
}

size_t Pass::eol_comment() {
  const size_t pos = pos_;
  const auto* nl = static_cast<const char*>(std::memchr(s_ + pos, '\n', n_ - pos));
  if (!nl) {
    cur_->set(kComment, pos, n_ - pos, s_ + pos);
    return n_;
  }
  cur_->set(kComment, pos, size_t(nl - s_) - pos, s_ + pos);
  return size_t(nl - s_) + 1;
}

// "--" then white space or the end is a comment everywhere; "--x" only in
// ANSI SQL (two minus signs in MySQL).
size_t Pass::dash() {
  const size_t pos = pos_;
  const bool dd = pos + 1 < n_ && s_[pos + 1] == '-';
  if ((dd && pos + 2 < n_ && white(s_[pos + 2])) || (dd && pos + 2 == n_)) return eol_comment();
  if (dd && (flags_ & kAnsi)) {
    ddx_++;
    return eol_comment();
  }
  cur_->set_char(kOperator, pos, '-');
  return pos + 1;
}

// A C comment; nested ones (PostgreSQL) and MySQL's "/*!" executable
// comments cannot be parsed reliably: evil.
size_t Pass::slash() {
  const size_t pos = pos_;
  if (pos + 1 == n_ || s_[pos + 1] != '*') {
    cur_->set_char(kOperator, pos, s_[pos]);
    return pos + 1;
  }
  const long end = find2(s_ + pos + 2, n_ - (pos + 2), '*', '/');  // from pos + 2
  const size_t clen = end < 0 ? n_ - pos : size_t(end) + 4;
  char type = kComment;
  if (end >= 0 && find2(s_ + pos + 2, size_t(end) + 1, '/', '*') >= 0)
    type = kEvil;
  else if (pos + 2 < n_ && s_[pos + 2] == '!')
    type = kEvil;
  cur_->set(type, pos, clen, s_ + pos);
  return pos + clen;
}

size_t Pass::operator2() {
  const size_t pos = pos_;
  if (pos + 1 >= n_) {
    cur_->set_char(kOperator, pos, s_[pos]);
    return pos + 1;
  }
  if (pos + 2 < n_ && s_[pos] == '<' && s_[pos + 1] == '=' && s_[pos + 2] == '>') {
    cur_->set(kOperator, pos, 3, s_ + pos);
    return pos + 3;
  }
  const char t = lookup_word(s_ + pos, 2);
  if (t != kNone) {
    cur_->set(t, pos, 2, s_ + pos);
    return pos + 2;
  }
  if (s_[pos] == ':') {
    cur_->set(kColon, pos, 1, s_ + pos);
    return pos + 1;
  }
  cur_->set_char(kOperator, pos, s_[pos]);
  return pos + 1;
}

// A string from pos + offset (offset 0: the quote was assumed before the
// input) to its closing delimiter; a delimiter after an odd run of
// backslashes, or doubled, does not close it.
size_t Pass::string_at(size_t pos, char delim, size_t offset) {
  Token& t = *cur_;
  const size_t start = pos + offset;
  t.str_open = offset > 0 ? delim : kNone;
  size_t q = start;
  for (;;) {
    const auto* hit = static_cast<const char*>(q < n_ ? std::memchr(s_ + q, delim, n_ - q) : nullptr);
    if (!hit) {
      t.set(kString, start, n_ - start, s_ + start);
      t.str_close = kNone;
      return n_;
    }
    q = size_t(hit - s_);
    size_t bs = 0;
    while (q - bs > start && s_[q - bs - 1] == '\\') bs++;
    if (bs & 1) {
      q += 1;
      continue;
    }
    if (q + 1 < n_ && s_[q + 1] == delim) {
      q += 2;
      continue;
    }
    t.set(kString, start, q - start, s_ + start);
    t.str_close = delim;
    return q + 1;
  }
}

// E'…' (PostgreSQL), N'…' (national character set)
size_t Pass::estring() {
  const size_t pos = pos_;
  if (pos + 2 >= n_ || s_[pos + 1] != '\'') return word();
  return string_at(pos, '\'', 2);
}

// U&'…'
size_t Pass::ustring() {
  const size_t pos = pos_;
  if (pos + 2 < n_ && s_[pos + 1] == '&' && s_[pos + 2] == '\'') {
    pos_ += 2;
    const size_t end = string_at(pos_, s_[pos_], 1);
    cur_->str_open = 'u';
    if (cur_->str_close == '\'') cur_->str_close = 'u';
    return end;
  }
  return word();
}

// Oracle's q'<delim>…<delim>'
size_t Pass::qstring(size_t offset) {
  const size_t pos = pos_ + offset;
  if (pos >= n_ || (s_[pos] != 'q' && s_[pos] != 'Q') || pos + 2 >= n_ || s_[pos + 1] != '\'') return word();
  char close = s_[pos + 2];
  if (static_cast<signed char>(close) < 33) return word();
  switch (close) {
    case '(': close = ')'; break;
    case '[': close = ']'; break;
    case '{': close = '}'; break;
    case '<': close = '>'; break;
  }
  const long end = find2(s_ + pos + 3, n_ - pos - 3, close, '\'');
  if (end < 0) {
    cur_->set(kString, pos + 3, n_ - pos - 3, s_ + pos + 3);
    cur_->str_open = 'q';
    cur_->str_close = kNone;
    return n_;
  }
  cur_->set(kString, pos + 3, size_t(end), s_ + pos + 3);
  cur_->str_open = 'q';
  cur_->str_close = 'q';
  return pos + 3 + size_t(end) + 2;
}

size_t Pass::nqstring() {
  if (pos_ + 2 < n_ && s_[pos_ + 1] == '\'') return estring();
  return qstring(1);
}

// b'0101' and x'1f': numbers
size_t Pass::bxstring(const char* digits) {
  const size_t pos = pos_;
  if (pos + 2 >= n_ || s_[pos + 1] != '\'') return word();
  const size_t k = span(s_ + pos + 2, n_ - pos - 2, digits);
  if (pos + 2 + k >= n_ || s_[pos + 2 + k] != '\'') return word();
  cur_->set(kNumber, pos, k + 3, s_ + pos);
  return pos + 2 + k + 1;
}

// SQL Server's [name]
size_t Pass::bword() {
  const size_t pos = pos_;
  const auto* e = static_cast<const char*>(std::memchr(s_ + pos, ']', n_ - pos));
  if (!e) {
    cur_->set(kBareword, pos, n_ - pos, s_ + pos);
    return n_;
  }
  cur_->set(kBareword, pos, size_t(e - s_) - pos + 1, s_ + pos);
  return size_t(e - s_) + 1;
}

size_t Pass::word() {
  const size_t pos = pos_;
  const size_t wlen = cspan(s_ + pos, n_ - pos, " []{}<>:\\?=@!#~+-*/&|^%(),';\t\n\v\f\r\"\240");
  Token& t = *cur_;
  t.set(kBareword, pos, wlen, s_ + pos);
  // "SELECT.1", "SELECT`col`": a keyword before a '.' or '`' is a token
  for (size_t i = 0; i < t.len; i++) {
    if (t.val[i] != '.' && t.val[i] != '`') continue;
    const char type = lookup_word(t.val, i);
    if (type != kNone && type != kBareword) {
      t.clear();
      t.set(type, pos, i, s_ + pos);
      return pos + i;
    }
  }
  if (wlen < kTokenSize) {
    const char type = lookup_word(t.val, wlen);
    t.type = type == kNone ? kBareword : type;
  }
  return pos + wlen;
}

// MySQL's `name`: a function name or else a bare word
size_t Pass::tick() {
  const size_t end = string_at(pos_, '`', 1);
  cur_->type = lookup_word(cur_->val, cur_->len) == kFunction ? kFunction : kBareword;
  return end;
}

// @var, @@var, @`var`, @'var'
size_t Pass::var() {
  size_t pos = pos_ + 1;
  if (pos < n_ && s_[pos] == '@') {
    pos++;
    cur_->count = 2;
  } else {
    cur_->count = 1;
  }
  if (pos < n_ && (s_[pos] == '`' || s_[pos] == '\'' || s_[pos] == '"')) {
    pos_ = pos;
    const size_t end = s_[pos] == '`' ? tick() : string_at(pos, s_[pos], 1);
    cur_->type = kVariable;
    return end;
  }
  const size_t k = cspan(s_ + pos, n_ - pos, " <>:\\?=@!#~+-*/&|^%(),';\t\n\v\f\r'`\"");
  cur_->set(kVariable, pos, k, s_ + pos);
  return pos + k;
}

// $1,000.00 (money), $$…$$ and $tag$…$tag$ (PostgreSQL strings)
size_t Pass::money() {
  const size_t pos = pos_;
  if (pos + 1 == n_) {
    cur_->set_char(kBareword, pos, '$');
    return n_;
  }
  size_t k = span(s_ + pos + 1, n_ - pos - 1, "0123456789.,");
  if (k == 0) {
    if (s_[pos + 1] == '$') {
      const long end = find2(s_ + pos + 2, n_ - pos - 2, '$', '$');
      if (end < 0) {
        cur_->set(kString, pos + 2, n_ - (pos + 2), s_ + pos + 2);
        cur_->str_open = '$';
        cur_->str_close = kNone;
        return n_;
      }
      cur_->set(kString, pos + 2, size_t(end), s_ + pos + 2);
      cur_->str_open = '$';
      cur_->str_close = '$';
      return pos + 2 + size_t(end) + 2;
    }
    k = span(s_ + pos + 1, n_ - pos - 1, "abcdefghjiklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    if (k == 0 || pos + k + 1 == n_ || s_[pos + k + 1] != '$') {
      cur_->set_char(kBareword, pos, '$');
      return pos + 1;
    }
    // $tag$ … $tag$
    const size_t body = pos + k + 2, tag = k + 2;
    size_t found = n_;
    for (size_t i = body; i + tag <= n_; i++)
      if (std::memcmp(s_ + i, s_ + pos, tag) == 0) {
        found = i;
        break;
      }
    if (found == n_) {
      cur_->set(kString, body, n_ - body, s_ + body);
      cur_->str_open = '$';
      cur_->str_close = kNone;
      return n_;
    }
    cur_->set(kString, body, found - body, s_ + body);
    cur_->str_open = '$';
    cur_->str_close = '$';
    return found + tag;
  }
  if (k == 1 && s_[pos + 1] == '.') return word();  // "$." is a word
  cur_->set(kNumber, pos, 1 + k, s_ + pos);
  return pos + 1 + k;
}

size_t Pass::number() {
  const size_t start = pos_;
  size_t pos = start;
  if (s_[pos] == '0' && pos + 1 < n_) {
    const char* digits = nullptr;
    if (s_[pos + 1] == 'X' || s_[pos + 1] == 'x')
      digits = "0123456789ABCDEFabcdef";
    else if (s_[pos + 1] == 'B' || s_[pos + 1] == 'b')
      digits = "01";
    if (digits) {
      const size_t k = span(s_ + pos + 2, n_ - pos - 2, digits);
      cur_->set(k == 0 ? kBareword : kNumber, pos, 2 + k, s_ + pos);
      return pos + 2 + k;
    }
  }
  auto digit = [&](size_t i) { return i < n_ && s_[i] >= '0' && s_[i] <= '9'; };
  while (digit(pos)) pos++;
  if (pos < n_ && s_[pos] == '.') {
    pos++;
    while (digit(pos)) pos++;
    if (pos - start == 1) {  // a lone '.'
      cur_->set_char(kDot, start, '.');
      return pos;
    }
  }
  bool have_e = false, have_exp = false;
  if (pos < n_ && (s_[pos] == 'E' || s_[pos] == 'e')) {
    have_e = true;
    pos++;
    if (pos < n_ && (s_[pos] == '+' || s_[pos] == '-')) pos++;
    while (digit(pos)) have_exp = true, pos++;
  }
  // Oracle's float/double suffix, when the number ends there ("1fUNION" too)
  if (pos < n_ && (s_[pos] == 'd' || s_[pos] == 'D' || s_[pos] == 'f' || s_[pos] == 'F')) {
    if (pos + 1 == n_ || white(s_[pos + 1]) || s_[pos + 1] == ';' || s_[pos + 1] == 'u' || s_[pos + 1] == 'U') pos++;
  }
  // "1.e", "10E": a word, not a number
  cur_->set(have_e && !have_exp ? kBareword : kNumber, start, pos - start, s_ + start);
  return pos;
}

bool Pass::next_token() {
  if (n_ == 0) return false;
  Token& t = *cur_;
  t.clear();
  if (pos_ == 0 && (flags_ & (kQuoteSingle | kQuoteDouble))) {
    pos_ = string_at(0, (flags_ & kQuoteSingle) ? '\'' : '"', 0);
    tokens_++;
    return true;
  }
  while (pos_ < n_) {
    pos_ = parse(kParser[uint8_t(s_[pos_])]);
    if (t.type != kNone) {
      tokens_++;
      return true;
    }
  }
  return false;
}

// "UNION" + "ALL" -> "UNION ALL" when the pair is itself a word.
bool Pass::merge_words(Token& a, const Token& b) {
  auto mergeable = [](char t) {
    return t == kKeyword || t == kBareword || t == kOperator || t == kUnion || t == kFunction || t == kExpression ||
           t == kTsql || t == kSqlType;
  };
  if (!mergeable(a.type) || !(mergeable(b.type) || b.type == kLogic)) return false;
  const size_t n = a.len + b.len + 1;
  if (n >= kTokenSize) return false;
  char tmp[kTokenSize];
  std::memcpy(tmp, a.val, a.len);
  tmp[a.len] = ' ';
  std::memcpy(tmp + a.len + 1, b.val, b.len);
  tmp[n] = 0;
  const char type = lookup_word(tmp, n);
  if (type == kNone) return false;
  a.set(type, a.pos, n, tmp);
  return true;
}

// Tokenizes and folds into at most five tokens; returns their count.
int Pass::fold() {
  Token last_comment;
  last_comment.clear();
  size_t pos = 0;   // where the next token goes
  size_t left = 0;  // tokens already settled
  bool more = true;
  Token* const v = tok_;

  // leading comments, '(', SQL types and unary operators are dropped
  cur_ = &v[0];
  while (more) {
    more = next_token();
    const Token& t = *cur_;
    if (!(t.type == kComment || t.type == kLeftParens || t.type == kSqlType || t.unary())) break;
  }
  if (!more) return 0;
  pos = 1;

  // the next token into v[pos], a comment kept aside instead
  auto take = [&](size_t want) {
    while (more && pos <= kMaxTokens && pos - left < want) {
      cur_ = &v[pos];
      more = next_token();
      if (!more) break;
      if (cur_->type == kComment) {
        last_comment = *cur_;
      } else {
        last_comment.type = kNone;
        pos++;
      }
    }
  };

  for (;;) {
    // five tokens: a few number/word expressions in parentheses fold away
    if (pos >= kMaxTokens) {
      const char t0 = v[0].type, t1 = v[1].type, t2 = v[2].type, t3 = v[3].type, t4 = v[4].type;
      if ((t0 == kNumber && (t1 == kOperator || t1 == kComma) && t2 == kLeftParens && t3 == kNumber &&
           t4 == kRightParens) ||
          (t0 == kBareword && t1 == kOperator && t2 == kLeftParens && (t3 == kBareword || t3 == kNumber) &&
           t4 == kRightParens) ||
          (t0 == kNumber && t1 == kRightParens && t2 == kComma && t3 == kLeftParens && t4 == kNumber) ||
          (t0 == kBareword && t1 == kRightParens && t2 == kOperator && t3 == kLeftParens && t4 == kBareword)) {
        if (pos > kMaxTokens) {
          v[1] = v[kMaxTokens];
          pos = 2;
        } else {
          pos = 1;
        }
        left = 0;
      }
    }
    if (!more || left >= kMaxTokens) {
      left = pos;
      break;
    }

    take(2);
    if (pos - left < 2) {
      left = pos;
      continue;
    }

    Token& a = v[left];
    Token& b = v[left + 1];
    // two-token folds
    if (a.type == kString && b.type == kString) {  // "foo" "bar"
      pos--;
      continue;
    }
    if (a.type == kSemicolon && b.type == kSemicolon) {
      pos--;
      continue;
    }
    if ((a.type == kOperator || a.type == kLogic) && (b.unary() || b.type == kSqlType)) {
      pos--;
      left = 0;
      continue;
    }
    if (a.type == kLeftParens && b.unary()) {
      pos--;
      if (left > 0) left--;
      continue;
    }
    if (merge_words(a, b)) {
      pos--;
      if (left > 0) left--;
      continue;
    }
    if (a.type == kSemicolon && b.type == kFunction && (b.val[0] == 'I' || b.val[0] == 'i') &&
        (b.val[1] == 'F' || b.val[1] == 'f')) {
      b.type = kTsql;  // "; IF …": Transact-SQL's statement
      continue;
    }
    if ((a.type == kBareword || a.type == kVariable) && b.type == kLeftParens &&
        (word_is("USER_ID", a.val, a.len) || word_is("USER_NAME", a.val, a.len) ||
         word_is("DATABASE", a.val, a.len) || word_is("PASSWORD", a.val, a.len) || word_is("USER", a.val, a.len) ||
         word_is("CURRENT_USER", a.val, a.len) || word_is("CURRENT_DATE", a.val, a.len) ||
         word_is("CURRENT_TIME", a.val, a.len) || word_is("CURRENT_TIMESTAMP", a.val, a.len) ||
         word_is("LOCALTIME", a.val, a.len) || word_is("LOCALTIMESTAMP", a.val, a.len))) {
      a.type = kFunction;  // column names, or functions when called
      continue;
    }
    if (a.type == kKeyword && (word_is("IN", a.val, a.len) || word_is("NOT IN", a.val, a.len))) {
      a.type = b.type == kLeftParens ? kOperator : kBareword;  // "IN (…)" compares
      continue;
    }
    if (a.type == kOperator && (word_is("LIKE", a.val, a.len) || word_is("NOT LIKE", a.val, a.len))) {
      if (b.type == kLeftParens) a.type = kFunction;  // LIKE(…)
    } else if (a.type == kSqlType && (b.type == kBareword || b.type == kNumber || b.type == kSqlType ||
                                      b.type == kLeftParens || b.type == kFunction || b.type == kVariable ||
                                      b.type == kString)) {
      a = b;  // a type cast: the value
      pos--;
      left = 0;
      continue;
    } else if (a.type == kCollate && b.type == kBareword) {
      if (std::strchr(b.val, '_')) {  // a collation name
        b.type = kSqlType;
        left = 0;
      }
    } else if (a.type == kBackslash) {
      if (b.arithmetic()) {
        a.type = kNumber;  // T-SQL: "\%1" is "0 % 1"
      } else {
        a = b;  // T-SQL reads "\1" as "1"
        pos--;
      }
      left = 0;
      continue;
    } else if ((a.type == kLeftParens && b.type == kLeftParens) || (a.type == kRightParens && b.type == kRightParens)) {
      pos--;
      left = 0;
      continue;
    } else if (a.type == kLeftBrace && b.type == kBareword) {
      if (b.len == 0) {  // MySQL's "{ ``": blacklisted outright
        b.type = kEvil;
        return int(left + 2);
      }
      left = 0;  // ODBC's "{foo expr}": expr
      pos -= 2;
      continue;
    } else if (b.type == kRightBrace) {
      pos--;
      left = 0;
      continue;
    }

    take(3);
    if (pos - left < 3) {
      left = pos;
      continue;
    }

    Token& c = v[left + 2];
    // three-token folds (a and b as above: take() wrote v[left + 2] only)
    if (a.type == kNumber && b.type == kOperator && c.type == kNumber) {
      pos -= 2;
      left = 0;
      continue;
    }
    if (a.type == kOperator && b.type != kLeftParens && c.type == kOperator) {
      left = 0;
      pos -= 2;
      continue;
    }
    if (a.type == kLogic && c.type == kLogic) {
      pos -= 2;
      left = 0;
      continue;
    }
    if (a.type == kVariable && b.type == kOperator &&
        (c.type == kVariable || c.type == kNumber || c.type == kBareword)) {
      pos -= 2;
      left = 0;
      continue;
    }
    if ((a.type == kBareword || a.type == kNumber) && b.type == kOperator &&
        (c.type == kNumber || c.type == kBareword)) {
      pos -= 2;
      left = 0;
      continue;
    }
    if ((a.type == kBareword || a.type == kNumber || a.type == kVariable || a.type == kString) &&
        b.type == kOperator && std::strcmp(b.val, "::") == 0 && c.type == kSqlType) {
      pos -= 2;  // PostgreSQL's cast
      left = 0;
      continue;
    }
    if ((a.type == kBareword || a.type == kNumber || a.type == kString || a.type == kVariable) && b.type == kComma &&
        (c.type == kNumber || c.type == kBareword || c.type == kString || c.type == kVariable)) {
      pos -= 2;
      left = 0;
      continue;
    }
    if ((a.type == kExpression || a.type == kGroup || a.type == kComma) && b.unary() && c.type == kLeftParens) {
      b = c;  // "SELECT + (": the unary operator goes
      pos--;
      left = 0;
      continue;
    }
    if ((a.type == kKeyword || a.type == kExpression || a.type == kGroup) && b.unary() &&
        (c.type == kNumber || c.type == kBareword || c.type == kVariable || c.type == kString ||
         c.type == kFunction)) {
      b = c;  // "SELECT - 1"
      pos--;
      left = 0;
      continue;
    }
    if (a.type == kComma && b.unary() &&
        (c.type == kNumber || c.type == kBareword || c.type == kVariable || c.type == kString)) {
      b = c;  // ", -1" then back up: "1,-1" folds to "1"
      left = 0;
      pos -= 3;
      continue;
    }
    if (a.type == kComma && b.unary() && c.type == kFunction) {
      b = c;  // ", -sin(1)" -> ", sin(1)"
      pos--;
      left = 0;
      continue;
    }
    if (a.type == kBareword && b.type == kDot && c.type == kBareword) {
      pos -= 2;  // database.table
      left = 0;
      continue;
    }
    if (a.type == kExpression && b.type == kDot && c.type == kBareword) {
      b = c;  // "SELECT . `foo`"
      pos--;
      left = 0;
      continue;
    }
    if (a.type == kFunction && b.type == kLeftParens && c.type != kRightParens) {
      // USER() takes no argument: "user(foo)" is no call
      if (word_is("USER", a.val, a.len)) a.type = kBareword;
    }
    left++;  // the leftmost token is settled
  }

  // a trailing comment comes back when there is room
  if (left < kMaxTokens && last_comment.type == kComment) v[left++] = last_comment;
  if (left > kMaxTokens) left = kMaxTokens;
  return int(left);
}

void Pass::fingerprint(int flags) {
  flags_ = flags;
  pos_ = 0;
  for (Token& t : tok_) t.clear();
  cur_ = tok_;
  std::memset(fp_, 0, sizeof(fp_));
  ddx_ = hash_ = tokens_ = 0;

  const int n = fold();
  // PHP's "`" comment trick: an unclosed, empty backtick word at the end
  if (n > 2) {
    Token& last = tok_[n - 1];
    if (last.type == kBareword && last.str_open == '`' && last.len == 0 && last.str_close == kNone) last.type = kComment;
  }
  for (int i = 0; i < n; i++) fp_[i] = tok_[i].type;
  fp_[n] = 0;
  if (std::strchr(fp_, kEvil)) {  // unparsable: the fingerprint is "X"
    std::memset(fp_, 0, kMaxTokens + 1);
    std::memset(tok_[0].val, 0, kTokenSize);
    fp_[0] = kEvil;
    tok_[0].type = kEvil;
    tok_[0].val[0] = kEvil;
    tok_[1].type = kNone;
  }
}

// libinjection's false-positive rules for a blacklisted fingerprint.
bool Pass::benign() const {
  const size_t n = strnlen(fp_, sizeof(fp_));
  // SQL Server's audit log skips statements mentioning sp_password
  if (n > 1 && fp_[n - 1] == kComment && std::string_view(s_, n_).find("sp_password") != std::string_view::npos)
    return false;
  const Token* v = tok_;
  if (n == 2) {
    if (fp_[1] == kUnion) return tokens_ == 2;  // "1 union" alone is no attack
    if (v[1].val[0] == '#') return true;        // '#' comments: too common
    // "word --": only a C comment counts
    if (v[0].type == kBareword && v[1].type == kComment && v[1].val[0] != '/') return true;
    if (v[0].type == kNumber && v[1].type == kComment && v[1].val[0] == '/') return false;  // "1/*"
    if (v[0].type == kNumber && v[1].type == kComment) {
      if (tokens_ > 2) return false;  // folded: likely an attack
      // "1234--" only when the number is followed by a space, "/*" or "--"
      // (base64-like "1234-ABC--" is not); the input read from its start
      const char c = at(v[0].len);
      if (le_space(c)) return false;
      if (c == '/' && at(v[0].len + 1) == '*') return false;
      if (c == '-' && at(v[0].len + 1) == '-') return false;
      return true;
    }
    // "--" in plain text is common: only a value ending with it counts
    if (v[1].len > 2 && v[1].val[0] == '-') return true;
    return false;
  }
  if (n == 3) {
    const std::string_view f(fp_, n);
    if (f == "sos" || f == "s&s") {
      // …foo" + "bar…: an unopened string and an unclosed one, same quote
      if (v[0].str_open == kNone && v[2].str_close == kNone && v[0].str_close == v[2].str_open) return false;
      return true;
    }
    if (f == "s&n" || f == "n&1" || f == "1&1" || f == "1&v" || f == "1&s") {
      return tokens_ == 3;  // "sexy and 17", but not "sexy and 17<18"
    }
    if (v[1].type == kKeyword) {
      // only INTO OUTFILE / INTO DUMPFILE (MySQL)
      if (v[1].len < 5 || !(up(v[1].val[0]) == 'I' && up(v[1].val[1]) == 'N' && up(v[1].val[2]) == 'T' &&
                            up(v[1].val[3]) == 'O'))
        return true;
    }
  }
  return false;
}

}  // namespace

bool sqli(const char* s, size_t n, char* fingerprint) {
  if (fingerprint) fingerprint[0] = 0;
  if (n == 0) return false;
  Pass p(s, n);
  auto hit = [&](int flags) {
    p.fingerprint(flags);
    if (!p.injection()) return false;
    if (fingerprint) std::strcpy(fingerprint, p.fp());
    return true;
  };
  // as is, then as if the input followed a ' or a " (MySQL's reading when
  // its comments differ from ANSI SQL's)
  if (hit(kQuoteNone | kAnsi)) return true;
  if (p.mysql_differs() && hit(kQuoteNone | kMysql)) return true;
  if (std::memchr(s, '\'', n)) {
    if (hit(kQuoteSingle | kAnsi)) return true;
    if (p.mysql_differs() && hit(kQuoteSingle | kMysql)) return true;
  }
  if (std::memchr(s, '"', n) && hit(kQuoteDouble | kMysql)) return true;
  return false;
}

void sqli_fingerprint(const char* s, size_t n, SqliContext context, char* out) {
  static constexpr int kFlags[] = {kQuoteNone | kAnsi, kQuoteNone | kMysql, kQuoteSingle | kAnsi,
                                   kQuoteSingle | kMysql, kQuoteDouble | kMysql};
  Pass p(s, n);
  p.fingerprint(kFlags[int(context)]);
  std::memcpy(out, p.fp(), 8);
}

}  // namespace fg
