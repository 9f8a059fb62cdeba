function s = m2cu_cell_joined(t, start, len)
%M2CU_CELL_JOINED  [c{:}] of an m2cu cell of texts (the text, and each piece's offset and
% length): its texts one after another. An empty cell stops: MATLAB's [c{:}] of no texts is
% [], a double, which this char result cannot be.
if numel(len) == 0
  error('m2cu:cellJoined', 'm2cu: [c{:}] of an empty cell is [] (a double) in MATLAB, which m2cu''s text cannot be; test isempty(c) first');
end
s = m2cu_strjoin(t, start, len, '', false);
end
