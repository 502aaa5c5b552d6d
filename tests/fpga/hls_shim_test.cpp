// Checks codegen/fpga/shim/dcw_hls_sim.h, DCW's stand-in for the Vitis HLS headers in C-simulation:
// ap_int/ap_uint wrap-around, ap_fixed truncation and arithmetic, hls::stream as a bounded FIFO with
// statistics, and the dataflow runner's deadlock and failure handling. A standalone program (the shim
// is compiled by the system g++ without the project): it exits 0 when every check passes and prints
// each failed check otherwise.
//
//   g++ -std=c++17 -O1 -Wall -Wextra -Wno-unknown-pragmas -pthread -Icodegen/fpga/shim
//       tests/fpga/hls_shim_test.cpp -o /tmp/hls_shim_test && /tmp/hls_shim_test

#include "dcw_hls_sim.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

namespace {

int failures = 0;

void check(bool ok, const char* what, int line, const std::string& detail = {}) {
  if (ok)
    return;
  ++failures;
  std::printf("FAILED line %d: %s%s%s\n", line, what, detail.empty() ? "" : ": ", detail.c_str());
}

#define CHECK(...) check((__VA_ARGS__), #__VA_ARGS__, __LINE__)
#define CHECK_DETAIL(condition, detail) check((condition), #condition, __LINE__, (detail))

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

const dcw_hls::StreamStats* findStats(const std::vector<dcw_hls::StreamStats>& all, const std::string& name) {
  for (const dcw_hls::StreamStats& stats : all)
    if (stats.name == name)
      return &stats;
  return nullptr;
}

void testApInt() {
  CHECK(ap_int<4>(7) + ap_int<4>(1) == -8);
  CHECK(ap_uint<3>(9) == 1);
  CHECK(ap_int<4>(8) == -8);
  CHECK(ap_int<4>(-9) == 7);
  CHECK(ap_uint<8>(-1) == 255);
  CHECK(ap_int<64>(-1) == -1);
  CHECK(ap_uint<64>(-1) == ~0ull);
  CHECK(-ap_int<4>(-8) == -8);
  CHECK(~ap_uint<4>(0) == 15);
  CHECK(ap_uint<4>(3) - ap_uint<4>(5) == 14);
  CHECK(ap_int<8>(100) * ap_int<8>(3) == 44); // 300 wraps to 300 - 256

  const ap_uint<8> bits = 0xA5;
  CHECK(bits[0] && !bits[1] && bits[2] && bits[7] && !bits[6]);
  CHECK(ap_int<4>(-1)[3]);
  CHECK(bits.range(7, 4) == 0xA);
  CHECK(bits.range(3, 0) == 5);
  CHECK(ap_int<8>(-1).range(7, 0) == 255);
  bool threw = false;
  try {
    (void)bits[8];
  } catch (const std::out_of_range&) {
    threw = true;
  }
  CHECK(threw);

  CHECK(ap_int<12>().length() == 12);
  CHECK(ap_int<8>(-3).to_int() == -3);
  CHECK(ap_uint<8>(200).to_uint() == 200u);
  CHECK(ap_int<40>(-5000000000LL).to_int64() == -5000000000LL);
  const long long widened = ap_int<8>(-3);
  const unsigned long long unsignedWidened = ap_uint<64>(~0ull);
  CHECK(widened == -3);
  CHECK(unsignedWidened == ~0ull);
  CHECK(ap_int<8>(-3.7) == -3);

  CHECK((ap_uint<8>(1) << 8) == 0);
  CHECK((ap_uint<8>(1) << 7) == 128);
  CHECK((ap_int<8>(-128) >> 7) == -1);
  CHECK((ap_uint<8>(0x80) >> 7) == 1);
  CHECK((ap_int<8>(1) << 7) == -128);

  CHECK(ap_int<8>(-7) / ap_int<8>(2) == -3);
  CHECK(ap_int<8>(-7) % ap_int<8>(2) == -1);
  CHECK(ap_int<8>(-128) / ap_int<8>(-1) == -128);
  CHECK(ap_int<64>(-9223372036854775807LL - 1) / ap_int<64>(-1) == -9223372036854775807LL - 1);

  ap_uint<4> counter = 15;
  counter += 1;
  CHECK(counter == 0);
  ap_int<3> small = 3;
  ++small;
  CHECK(small == -4);
  ap_int<8> accumulator = 0;
  for (ap_uint<4> i = 0; i < 10; i++)
    accumulator += i;
  CHECK(accumulator == 45);

  // Mixed operands take the wider type: a C++ int counts as 32 bits, mixed signedness adds one bit.
  CHECK(ap_uint<8>(255) + 1 == 256);
  CHECK(ap_uint<8>(200) + ap_int<8>(0) == 200);
  CHECK(ap_uint<8>(200) > ap_int<8>(-1));
  CHECK(ap_uint<64>(~0ull) > -1);
  CHECK(ap_int<8>(-1) < 0u);
}

void testApFixed() {
  using Fixed = ap_fixed<16, 8>;
  const double resolution = 1.0 / 256;

  const Fixed a = 3.14159;
  const Fixed b = -2.71828;
  CHECK(a.to_double() <= 3.14159 && 3.14159 - a.to_double() < resolution);
  CHECK(b.to_double() <= -2.71828 && -2.71828 - b.to_double() < resolution);

  // Truncation is toward minus infinity: -1.3 * 256 = -332.8 becomes -333.
  CHECK(Fixed(-1.3).to_double() == -333.0 / 256);
  CHECK(Fixed(1.3).to_double() == 332.0 / 256);

  const double x = a.to_double();
  const double y = b.to_double();
  CHECK((a + b).to_double() == x + y);
  CHECK((a - b).to_double() == x - y);
  const double product = (a * b).to_double();
  CHECK(product <= x * y && x * y - product < resolution);
  const double quotient = (a / b).to_double();
  CHECK(quotient <= x / y && x / y - quotient < resolution);
  const double positiveQuotient = (a / Fixed(0.5)).to_double();
  CHECK(positiveQuotient <= x / 0.5 && x / 0.5 - positiveQuotient < resolution);

  Fixed sum = 0;
  for (int i = 0; i < 10; ++i)
    sum += Fixed(0.5);
  CHECK(sum.to_double() == 5.0);
  sum *= 2;
  CHECK(sum == 10);

  CHECK(Fixed(128.0).to_double() == -128.0); // AP_WRAP
  CHECK(Fixed(127.5) + Fixed(1) == Fixed(-127.5));
  CHECK(ap_ufixed<8, 4>(-1.0).to_double() == 15.0);
  CHECK(a > b && b < 0 && a == Fixed(x) && -a == Fixed(-x));
  CHECK(static_cast<double>(a) == x && static_cast<float>(a) == a.to_float());
  CHECK(Fixed(ap_int<8>(-3)) == -3);
  CHECK(Fixed(ap_fixed<24, 8>(-1.3)).to_double() == -333.0 / 256);
  static_assert(!std::is_convertible_v<Fixed, double>, "no implicit conversion to double, as in Vitis");
  static_assert(std::is_constructible_v<double, Fixed>, "explicit conversion to double");
}

void testProducerConsumer() {
  constexpr int count = 10000;
  hls::stream<int> channel("pc_channel");
  bool inOrder = true;
  dcw_hls::Dataflow dataflow;
  dataflow.add("producer", [&] {
    for (int i = 0; i < count; ++i)
      channel.write(i);
  });
  dataflow.add("consumer", [&] {
    for (int i = 0; i < count; ++i)
      if (channel.read() != i)
        inOrder = false;
  });
  dataflow.run();
  CHECK(inOrder);
  CHECK(channel.empty());

  const std::vector<dcw_hls::StreamStats> all = dcw_hls::Registry::instance().snapshot();
  const dcw_hls::StreamStats* stats = findStats(all, "pc_channel");
  CHECK(stats != nullptr);
  if (stats) {
    CHECK(stats->depth == 2);
    CHECK(stats->writes == count && stats->reads == count);
    CHECK(stats->maxOccupancy >= 1 && stats->maxOccupancy <= 2);
  }
}

// A kernel's streams end with each launch: their counts stay in the totals, summed by name, until reset.
void testTotalsKeepEndedStreams() {
  dcw_hls::Registry::instance().resetTotals();
  for (int launch = 0; launch < 3; ++launch) {
    hls::stream<int> s("launch_channel", 4);
    dcw_hls::Dataflow dataflow;
    dataflow.add("producer", [&] {
      for (int i = 0; i < 100; ++i) s.write(i);
    });
    dataflow.add("consumer", [&] {
      for (int i = 0; i < 100; ++i) (void)s.read();
    });
    dataflow.run();
  }
  const std::vector<dcw_hls::StreamStats> all = dcw_hls::Registry::instance().totals();
  const dcw_hls::StreamStats* stats = findStats(all, "launch_channel");
  CHECK(stats != nullptr);
  if (stats) {
    CHECK(stats->depth == 4);
    CHECK(stats->writes == 300 && stats->reads == 300);
    CHECK(stats->maxOccupancy >= 1 && stats->maxOccupancy <= 4);
  }
  CHECK(findStats(dcw_hls::Registry::instance().snapshot(), "launch_channel") == nullptr); // none is live
  dcw_hls::Registry::instance().resetTotals();
  CHECK(findStats(dcw_hls::Registry::instance().totals(), "launch_channel") == nullptr);
}

struct RunOutcome {
  bool completed = false;
  bool deadlock = false;
  bool inOrder = true;
  std::string message;
  double milliseconds = 0;
};

// A producer writes n items to A and then n to B, while the consumer reads A and B alternately: with
// channels shallower than n the producer fills A while the consumer waits on B.
RunOutcome runReconvergent(int depth, int n) {
  hls::stream<int> a("A", depth);
  hls::stream<int> b("B", depth);
  RunOutcome outcome;
  dcw_hls::Dataflow dataflow;
  dataflow.add("producer", [&] {
    for (int i = 0; i < n; ++i)
      a << i;
    for (int i = 0; i < n; ++i)
      b << 1000 + i;
  });
  dataflow.add("consumer", [&] {
    for (int i = 0; i < n; ++i) {
      int fromA = 0;
      int fromB = 0;
      a >> fromA;
      b >> fromB;
      if (fromA != i || fromB != 1000 + i)
        outcome.inOrder = false;
    }
  });
  const Clock::time_point start = Clock::now();
  try {
    dataflow.run();
    outcome.completed = true;
  } catch (const dcw_hls::Deadlock& error) {
    outcome.deadlock = true;
    outcome.message = error.what();
  }
  outcome.milliseconds = millisecondsSince(start);
  return outcome;
}

void testDeadlockDetected() {
  const RunOutcome outcome = runReconvergent(2, 16);
  CHECK(outcome.deadlock);
  CHECK_DETAIL(outcome.milliseconds < 500, std::to_string(outcome.milliseconds) + " ms");
  CHECK_DETAIL(outcome.message == "deadlock: PE 'producer' blocked writing stream 'A' (full, depth 2, 2/2); "
                                  "PE 'consumer' blocked reading stream 'B' (empty, depth 2, 0/2)",
               outcome.message);
}

void testDeepEnoughCompletes() {
  const RunOutcome outcome = runReconvergent(17, 16);
  CHECK_DETAIL(outcome.completed, outcome.message);
  CHECK(outcome.inOrder);
}

void testOutsideDataflow() {
  hls::stream<int> lonely("lonely");
  int value = 0;
  CHECK(!lonely.read_nb(value));
  const Clock::time_point start = Clock::now();
  std::string message;
  try {
    lonely.read();
  } catch (const dcw_hls::Deadlock& error) {
    message = error.what();
  }
  CHECK_DETAIL(message == "read from empty stream 'lonely' outside a dataflow region", message);
  CHECK(millisecondsSince(start) < 100);

  hls::stream<int> shallow("shallow", 1);
  shallow.write(1);
  CHECK(shallow.full() && !shallow.write_nb(2));
  message.clear();
  try {
    shallow.write(2);
  } catch (const dcw_hls::Deadlock& error) {
    message = error.what();
  }
  CHECK_DETAIL(contains(message, "write to full stream 'shallow' outside a dataflow region"), message);
  CHECK(shallow.size() == 1 && shallow.read() == 1);

  hls::stream<int> unnamed;
  const std::vector<dcw_hls::StreamStats> all = dcw_hls::Registry::instance().snapshot();
  CHECK(all.back().name.rfind("stream_", 0) == 0);
}

// A PE that throws ends the run: the PE blocked on its stream fails too, naming it, and run() rethrows
// the original exception.
void testFailingPe() {
  hls::stream<int> channel("boom_channel");
  std::string waiterMessage;
  dcw_hls::Dataflow dataflow;
  dataflow.add("thrower", [&] {
    for (int i = 0; i < 3; ++i)
      channel.write(i);
    throw std::runtime_error("boom");
  });
  dataflow.add("waiter", [&] {
    try {
      for (int i = 0; i < 100; ++i)
        channel.read();
    } catch (const dcw_hls::Deadlock& error) {
      waiterMessage = error.what();
      throw;
    }
  });
  const Clock::time_point start = Clock::now();
  std::string message;
  bool wasDeadlock = false;
  try {
    dataflow.run();
  } catch (const dcw_hls::Deadlock& error) {
    wasDeadlock = true;
    message = error.what();
  } catch (const std::runtime_error& error) {
    message = error.what();
  }
  CHECK(!wasDeadlock);
  CHECK_DETAIL(message == "boom", message);
  CHECK_DETAIL(contains(waiterMessage, "PE 'thrower' failed first: boom"), waiterMessage);
  CHECK(millisecondsSince(start) < 500);
}

// With no stream moving for the stall timeout, a blocked PE fails even though another PE is not
// blocked on a stream (here: sleeping).
void testStallTimeout() {
  dcw_hls::set_stall_timeout_ms(100);
  hls::stream<int> channel("stalled");
  dcw_hls::Dataflow dataflow;
  dataflow.add("reader", [&] { channel.read(); });
  dataflow.add("sleeper", [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    channel.write(1);
  });
  std::string message;
  try {
    dataflow.run();
  } catch (const dcw_hls::Deadlock& error) {
    message = error.what();
  }
  dcw_hls::set_stall_timeout_ms(2000);
  CHECK_DETAIL(message == "deadlock (no stream progress for 100 ms): PE 'reader' blocked reading stream "
                          "'stalled' (empty, depth 2, 0/2); PE 'sleeper' not blocked on a stream",
               message);
}

// A PE waiting longer than the stall timeout for the end of a pipeline that keeps moving does not fail.
void testLongWaitWithProgress() {
  dcw_hls::set_stall_timeout_ms(100);
  hls::stream<int> items("items");
  hls::stream<int> total("total");
  int result = 0;
  dcw_hls::Dataflow dataflow;
  dataflow.add("feeder", [&] {
    for (int i = 1; i <= 300; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      items.write(i);
    }
  });
  dataflow.add("summer", [&] {
    int sum = 0;
    for (int i = 0; i < 300; ++i)
      sum += items.read();
    total.write(sum);
  });
  dataflow.add("collector", [&] { result = total.read(); });
  std::string message;
  try {
    dataflow.run();
  } catch (const dcw_hls::Deadlock& error) {
    message = error.what();
  }
  dcw_hls::set_stall_timeout_ms(2000);
  CHECK_DETAIL(message.empty(), message);
  CHECK(result == 300 * 301 / 2);
}

// A PE running a nested dataflow is not stuck once its nested PEs have finished, even while the
// outer PEs all wait for it.
void testNestedDataflow() {
  hls::stream<int> input("nested_in");
  hls::stream<int> middle("nested_mid");
  hls::stream<int> output("nested_out");
  int result = 0;
  dcw_hls::Dataflow outer;
  outer.add("source", [&] {
    for (int i = 1; i <= 4; ++i)
      input.write(i);
  });
  outer.add("stage", [&] {
    int sum = 0;
    dcw_hls::Dataflow inner;
    inner.add("doubler", [&] {
      for (int i = 0; i < 4; ++i)
        middle.write(2 * input.read());
    });
    inner.add("adder", [&] {
      for (int i = 0; i < 4; ++i)
        sum += middle.read();
    });
    inner.run();
    output.write(sum);
  });
  outer.add("sink", [&] { result = output.read(); });
  std::string message;
  try {
    outer.run();
  } catch (const dcw_hls::Deadlock& error) {
    message = error.what();
  }
  CHECK_DETAIL(message.empty(), message);
  CHECK(result == 20);
}

} // namespace

int main() {
  testApInt();
  testApFixed();
  testProducerConsumer();
  testTotalsKeepEndedStreams();
  testDeadlockDetected();
  testDeepEnoughCompletes();
  testOutsideDataflow();
  testFailingPe();
  testStallTimeout();
  testLongWaitWithProgress();
  testNestedDataflow();
  if (failures == 0)
    std::printf("hls_shim_test: all checks passed\n");
  else
    std::printf("hls_shim_test: %d check(s) failed\n", failures);
  return failures == 0 ? 0 : 1;
}
