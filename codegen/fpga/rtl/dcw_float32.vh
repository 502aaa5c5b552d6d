// dcw_float32.vh - IEEE-754 binary32 arithmetic as synthesizable Verilog-2001 functions.
//
// What: add, subtract, multiply, compare and int64 <-> float conversions on 32-bit binary32 bit
// patterns, each a purely combinational function:
//   dcw_fadd32(a, b)  a + b          dcw_flt32(a, b)  a <  b   (1 bit; any NaN -> 0, +0 == -0)
//   dcw_fsub32(a, b)  a - b          dcw_fle32(a, b)  a <= b
//   dcw_fmul32(a, b)  a * b          dcw_feq32(a, b)  a == b
//   dcw_fgt32(a, b)   a >  b         dcw_fge32(a, b)  a >= b
//   dcw_fi64_to_f32(x)  signed 64-bit integer -> float, round to nearest even
//   dcw_ff32_to_i64(a)  float -> signed 64-bit integer: truncation toward zero, saturating at
//                       INT64_MIN / INT64_MAX, NaN -> 0 (DCW's runtime conversion, dcw_rt::to_int)
//   dcw_fisnan32(a[30:0]), dcw_fpack32(...)  helpers
//
// Why: DCW's RTL generator (codegen/fpga/RtlGenerator.cpp) pastes this text inside every generated
// loop module that computes in floating point, and RTL co-simulation compares the kernel's outputs
// with the C-simulation's bit for bit. So every result here equals what g++ (-O2, no -ffast-math) gives
// for the same C++ float expression on x86-64 SSE: round to nearest even, subnormal inputs and outputs
// fully supported (no flush to zero), overflow to +-inf, x + (-x) = +0, NaN results as addss/subss/
// mulss produce them (the first NaN operand with its quiet bit set; an invalid operation gives the
// x86 default NaN 0xFFC00000). The functions are combinational; the generator adds the pipeline
// registers after each call so the hardware's latency matches its estimator's operator latencies.
//
// Rules for this file: only function definitions (it is included inside a module body), every name
// starts with dcw_f, arguments and locals end in '_' (so they never hide the including module's
// signals), Verilog-2001 only, loops have constant bounds. Verified bit-exact against native
// x86 float arithmetic by tests/fpga/float_cores/check_float_cores.sh.

// 1 when a (sign bit left off) is a NaN: exponent all ones, fraction non-zero.
function dcw_fisnan32(input [30:0] a_);
    begin
        dcw_fisnan32 = (a_[30:23] == 8'hFF) && (a_[22:0] != 23'd0);
    end
endfunction

// Round to nearest even and pack. Value = m / 2^47 * 2^(e - 127), m normalised so that m[47] is the
// leading one (bits below m[23] are guard and sticky; callers OR lost bits into m[0]); e is a 12-bit
// two's complement biased exponent. Handles overflow to inf, gradual underflow to subnormal or zero
// (with sticky) and the rounding carry into the exponent (including into inf).
function [31:0] dcw_fpack32(input s_, input [11:0] e_, input [47:0] m_);
    reg [11:0] sh_;
    reg [46:0] mm_;  // m without its leading one
    reg        st_;
    reg [7:0]  ef_;
    reg        inc_;
    reg [30:0] mag_;
    begin
        sh_ = 12'd0;
        mm_ = m_[46:0];
        st_ = 1'b0;
        ef_ = 8'd0;
        if (m_ == 48'd0) begin
            dcw_fpack32 = {s_, 31'd0};
        end else if (!e_[11] && e_ >= 12'd255) begin
            dcw_fpack32 = {s_, 8'hFF, 23'd0};
        end else begin
            if (e_[11] || e_ == 12'd0) begin
                // subnormal result: shift right by 1 - e, collecting the lost bits as sticky
                sh_ = 12'd1 - e_;
                if (sh_ >= 12'd48) begin
                    mm_ = 47'd0;
                    st_ = 1'b1;
                end else begin
                    mm_ = m_[47:1] >> (sh_ - 12'd1);  // m >> sh (its top bit is then 0)
                    st_ = |(m_ << (12'd48 - sh_));
                end
                mm_[0] = mm_[0] | st_;
                ef_ = 8'd0;
            end else begin
                ef_ = e_[7:0];
            end
            inc_ = mm_[23] & ((|mm_[22:0]) | mm_[24]);
            // the carry of the increment runs into the exponent field: fraction overflow bumps the
            // exponent, the largest subnormal becomes the smallest normal, the largest finite inf
            mag_ = {ef_, mm_[46:24]} + {30'd0, inc_};
            dcw_fpack32 = {s_, mag_};
        end
    end
endfunction

// a + b
function [31:0] dcw_fadd32(input [31:0] a_, input [31:0] b_);
    reg        a_inf_, b_inf_, swap_;
    reg [31:0] x_, y_;
    reg [7:0]  ex_, ey_, d_;
    reg [23:0] mx_, my_;
    reg [49:0] yw_, yal_;
    reg        st_;
    reg [50:0] sum_, sn_;
    reg [5:0]  p_;
    reg [11:0] e_;
    integer    i_;
    begin
        a_inf_ = (a_[30:0] == 31'h7F800000);
        b_inf_ = (b_[30:0] == 31'h7F800000);
        swap_ = 1'b0; x_ = a_; y_ = b_; ex_ = 8'd0; ey_ = 8'd0; d_ = 8'd0; mx_ = 24'd0; my_ = 24'd0;
        yw_ = 50'd0; yal_ = 50'd0; st_ = 1'b0; sum_ = 51'd0; sn_ = 51'd0; p_ = 6'd0; e_ = 12'd0;
        if (dcw_fisnan32(a_[30:0])) begin
            dcw_fadd32 = a_ | 32'h00400000;
        end else if (dcw_fisnan32(b_[30:0])) begin
            dcw_fadd32 = b_ | 32'h00400000;
        end else if (a_inf_ && b_inf_ && (a_[31] != b_[31])) begin
            dcw_fadd32 = 32'hFFC00000;
        end else if (a_inf_) begin
            dcw_fadd32 = a_;
        end else if (b_inf_) begin
            dcw_fadd32 = b_;
        end else begin
            // x: the operand of larger magnitude
            swap_ = (b_[30:0] > a_[30:0]);
            x_ = swap_ ? b_ : a_;
            y_ = swap_ ? a_ : b_;
            ex_ = (x_[30:23] == 8'd0) ? 8'd1 : x_[30:23];
            ey_ = (y_[30:23] == 8'd0) ? 8'd1 : y_[30:23];
            mx_ = {(x_[30:23] != 8'd0), x_[22:0]};
            my_ = {(y_[30:23] != 8'd0), y_[22:0]};
            d_ = ex_ - ey_;
            // align y: 26 extra low bits keep the sum exact for d <= 26; beyond that y's bits all lie
            // below the guard bit and a sticky bit stands for the ones shifted out
            yw_ = {my_, 26'd0};
            if (d_ >= 8'd50) begin
                yal_ = 50'd0;
                st_ = (my_ != 24'd0);
            end else begin
                yal_ = yw_ >> d_;
                st_ = |(yw_ << (8'd50 - d_));
            end
            yal_[0] = yal_[0] | st_;
            if (x_[31] == y_[31])
                sum_ = {1'b0, mx_, 26'd0} + {1'b0, yal_};
            else
                sum_ = {1'b0, mx_, 26'd0} - {1'b0, yal_};
            if (sum_ == 51'd0) begin
                // exact zero: +0 unless both operands are -0
                dcw_fadd32 = {a_[31] & b_[31], 31'd0};
            end else begin
                // leading one (massive cancellation normalises left by up to 49 bits)
                for (i_ = 0; i_ < 51; i_ = i_ + 1)
                    if (sum_[i_]) p_ = i_[5:0];
                sn_ = sum_ << (6'd50 - p_);
                e_ = {4'd0, ex_} + {6'd0, p_} - 12'd49;
                dcw_fadd32 = dcw_fpack32(x_[31], e_, {sn_[50:4], |sn_[3:0]});
            end
        end
    end
endfunction

// a - b (a NaN b is propagated with its own sign, as x86 subss does)
function [31:0] dcw_fsub32(input [31:0] a_, input [31:0] b_);
    begin
        if (dcw_fisnan32(b_[30:0]))
            dcw_fsub32 = dcw_fadd32(a_, b_);
        else
            dcw_fsub32 = dcw_fadd32(a_, {~b_[31], b_[30:0]});
    end
endfunction

// a * b
function [31:0] dcw_fmul32(input [31:0] a_, input [31:0] b_);
    reg        s_, a_inf_, b_inf_, a_zero_, b_zero_;
    reg [7:0]  ea_, eb_;
    reg [23:0] ma_, mb_;
    reg [47:0] prod_, pn_;
    reg [5:0]  p_;
    reg [11:0] e_;
    integer    i_;
    begin
        s_ = a_[31] ^ b_[31];
        a_inf_ = (a_[30:0] == 31'h7F800000);
        b_inf_ = (b_[30:0] == 31'h7F800000);
        a_zero_ = (a_[30:0] == 31'd0);
        b_zero_ = (b_[30:0] == 31'd0);
        ea_ = 8'd0; eb_ = 8'd0; ma_ = 24'd0; mb_ = 24'd0; prod_ = 48'd0; pn_ = 48'd0; p_ = 6'd0; e_ = 12'd0;
        if (dcw_fisnan32(a_[30:0])) begin
            dcw_fmul32 = a_ | 32'h00400000;
        end else if (dcw_fisnan32(b_[30:0])) begin
            dcw_fmul32 = b_ | 32'h00400000;
        end else if ((a_inf_ && b_zero_) || (a_zero_ && b_inf_)) begin
            dcw_fmul32 = 32'hFFC00000;
        end else if (a_inf_ || b_inf_) begin
            dcw_fmul32 = {s_, 8'hFF, 23'd0};
        end else if (a_zero_ || b_zero_) begin
            dcw_fmul32 = {s_, 31'd0};
        end else begin
            ea_ = (a_[30:23] == 8'd0) ? 8'd1 : a_[30:23];
            eb_ = (b_[30:23] == 8'd0) ? 8'd1 : b_[30:23];
            ma_ = {(a_[30:23] != 8'd0), a_[22:0]};
            mb_ = {(b_[30:23] != 8'd0), b_[22:0]};
            prod_ = {24'd0, ma_} * {24'd0, mb_};
            // leading one: bit 46 or 47 for normal operands, lower for subnormal ones
            for (i_ = 0; i_ < 48; i_ = i_ + 1)
                if (prod_[i_]) p_ = i_[5:0];
            pn_ = prod_ << (6'd47 - p_);
            e_ = {4'd0, ea_} + {4'd0, eb_} + {6'd0, p_} - 12'd173;
            dcw_fmul32 = dcw_fpack32(s_, e_, pn_);
        end
    end
endfunction

// a == b (any NaN -> 0, +0 == -0)
function dcw_feq32(input [31:0] a_, input [31:0] b_);
    begin
        if (dcw_fisnan32(a_[30:0]) || dcw_fisnan32(b_[30:0]))
            dcw_feq32 = 1'b0;
        else
            dcw_feq32 = (a_ == b_) || ((a_[30:0] | b_[30:0]) == 31'd0);
    end
endfunction

// a < b (any NaN -> 0)
function dcw_flt32(input [31:0] a_, input [31:0] b_);
    reg [31:0] ka_, kb_;
    begin
        // order-preserving keys: negative values complemented, positive ones with the top bit set
        ka_ = a_[31] ? ~a_ : {1'b1, a_[30:0]};
        kb_ = b_[31] ? ~b_ : {1'b1, b_[30:0]};
        if (dcw_fisnan32(a_[30:0]) || dcw_fisnan32(b_[30:0]))
            dcw_flt32 = 1'b0;
        else if ((a_[30:0] | b_[30:0]) == 31'd0)
            dcw_flt32 = 1'b0;
        else
            dcw_flt32 = (ka_ < kb_);
    end
endfunction

// a <= b (any NaN -> 0)
function dcw_fle32(input [31:0] a_, input [31:0] b_);
    begin
        dcw_fle32 = dcw_flt32(a_, b_) || dcw_feq32(a_, b_);
    end
endfunction

// a > b
function dcw_fgt32(input [31:0] a_, input [31:0] b_);
    begin
        dcw_fgt32 = dcw_flt32(b_, a_);
    end
endfunction

// a >= b
function dcw_fge32(input [31:0] a_, input [31:0] b_);
    begin
        dcw_fge32 = dcw_fle32(b_, a_);
    end
endfunction

// static_cast<float>(int64_t x), round to nearest even
function [31:0] dcw_fi64_to_f32(input [63:0] x_);
    reg        s_;
    reg [63:0] mag_, mn_;
    reg [5:0]  p_;
    integer    i_;
    begin
        s_ = x_[63];
        mag_ = s_ ? (~x_ + 64'd1) : x_;  // INT64_MIN gives 2^63, as unsigned
        p_ = 6'd0;
        for (i_ = 0; i_ < 64; i_ = i_ + 1)
            if (mag_[i_]) p_ = i_[5:0];
        mn_ = mag_ << (6'd63 - p_);
        if (x_ == 64'd0)
            dcw_fi64_to_f32 = 32'd0;
        else
            dcw_fi64_to_f32 = dcw_fpack32(s_, {6'd0, p_} + 12'd127, {mn_[63:17], |mn_[16:0]});
    end
endfunction

// float -> int64: truncation toward zero, saturating at INT64_MIN / INT64_MAX, NaN -> 0
function [63:0] dcw_ff32_to_i64(input [31:0] a_);
    reg [63:0] mag_;
    begin
        mag_ = {40'd0, 1'b1, a_[22:0]};
        if (a_[30:23] >= 8'd150)
            mag_ = mag_ << (a_[30:23] - 8'd150);
        else
            mag_ = mag_ >> (8'd150 - a_[30:23]);
        if (dcw_fisnan32(a_[30:0]))
            dcw_ff32_to_i64 = 64'd0;
        else if (a_[30:23] >= 8'd190)  // |a| >= 2^63, inf included
            dcw_ff32_to_i64 = a_[31] ? 64'h8000000000000000 : 64'h7FFFFFFFFFFFFFFF;
        else if (a_[30:23] < 8'd127)   // |a| < 1, zeros and subnormals included
            dcw_ff32_to_i64 = 64'd0;
        else
            dcw_ff32_to_i64 = a_[31] ? (~mag_ + 64'd1) : mag_;
    end
endfunction
